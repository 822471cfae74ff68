#!/bin/sh
# Makes the two ways to install the SQL edition from its one source,
# sql_edition/snowflake_sql.sql (make sql-edition runs this):
#
#   sh sql_edition/build.sh OUTDIR VERSION [EARLIER_VERSION...]
#
#   OUTDIR/snowflake_sql_pg_tle.sql  registers the extension snowflake_sql
#       VERSION with pg_tle (install_extension, or install_extension_version_sql
#       where an earlier version is registered), an update path to VERSION from
#       each EARLIER_VERSION (install_update_path), and VERSION as the default;
#       then CREATE EXTENSION snowflake_sql (or ALTER EXTENSION snowflake_sql
#       UPDATE) installs it.
#   OUTDIR/snowflake_sql.sql  the same objects as a plain script for psql -f,
#       into the current schema; run again, it updates an older install in
#       place.
#
# The extension script, each update script and the plain script are the same
# text (the source is written to run as any of them), so they cannot differ.
# Both files are one transaction: a failure leaves nothing half-installed.
# Needs only a POSIX shell and sed: no PostgreSQL.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$here/snowflake_sql.sql
[ $# -ge 2 ] || { echo "usage: build.sh OUTDIR VERSION [EARLIER_VERSION...]" >&2; exit 2; }
out=$1
version=$2
shift 2

name=snowflake_sql
# shellcheck disable=SC2016  # a dollar-quote tag, not an expansion
tag='$_snowflake_sql_$'
# shellcheck disable=SC2016
if grep -q '\$_snowflake_sql_\$' "$src"; then
    echo "build.sh: $src contains the quote tag $tag" >&2
    exit 1
fi
case $version in
    *[!0-9A-Za-z.]* | '') echo "build.sh: bad version '$version'" >&2; exit 2 ;;
esac
for v in "$@"; do
    case $v in
        *[!0-9A-Za-z.]* | '') echo "build.sh: bad earlier version '$v'" >&2; exit 2 ;;
    esac
done

mkdir -p "$out"
script=$out/.$name.script.$$
trap 'rm -f "$script"' EXIT
sed "s/@SNOWFLAKE_SQL_VERSION@/$version/g" "$src" >"$script"

header() {
    cat <<EOF
-- snowflake $name $version: the SQL edition of snowflake (docs/managed.md).
-- Made by \`make sql-edition\` from sql_edition/snowflake_sql.sql; do not edit.
--
$1
EOF
}

quoted() {
    echo "$tag"
    cat "$script"
    echo "$tag"
}

{
    header "-- Installs the snowflake_sql objects into the current schema, as a plain
-- script: psql -d DATABASE -f snowflake_sql.sql, by a role with CREATE on that
-- schema (SET search_path first to choose another).  Running it again updates
-- an older install in place; the node's configuration and ids are kept.  Then,
-- as the same role: SELECT snowflake_configure(worker_id => N);"
    echo
    echo "BEGIN;"
    # Run again over an older install, the IF NOT EXISTS notices say nothing.
    echo "SET LOCAL client_min_messages = warning;"
    cat "$script"
    echo "COMMIT;"
} >"$out/$name.sql.tmp"

{
    header "-- Registers the extension $name $version with pg_tle, as a member of
-- pgtle_admin (no superuser needed): psql -d DATABASE -f snowflake_sql_pg_tle.sql.
-- Then CREATE EXTENSION $name; (or, over an earlier version, ALTER EXTENSION
-- $name UPDATE;) and, as the role that created it:
-- SELECT snowflake_configure(worker_id => N);"
    echo
    echo "BEGIN;"
    echo
    echo "SELECT pgtle.install_extension('$name', '$version',"
    echo "    'unique, time-ordered 64-bit ids (snowflake, SQL edition)',"
    quoted
    echo ")"
    echo "WHERE NOT EXISTS (SELECT 1 FROM pgtle.available_extensions() WHERE name = '$name');"
    echo
    echo "SELECT pgtle.install_extension_version_sql('$name', '$version',"
    quoted
    echo ")"
    echo "WHERE NOT EXISTS (SELECT 1 FROM pgtle.available_extension_versions()"
    echo "                  WHERE name = '$name' AND version = '$version');"
    for v in "$@"; do
        echo
        echo "SELECT pgtle.install_update_path('$name', '$v', '$version',"
        quoted
        echo ")"
        echo "WHERE NOT EXISTS (SELECT 1 FROM pgtle.extension_update_paths('$name')"
        echo "                  WHERE source = '$v' AND target = '$version' AND path = '$v--$version');"
    done
    echo
    echo "SELECT pgtle.set_default_version('$name', '$version');"
    echo
    echo "COMMIT;"
} >"$out/${name}_pg_tle.sql.tmp"

mv "$out/$name.sql.tmp" "$out/$name.sql"
mv "$out/${name}_pg_tle.sql.tmp" "$out/${name}_pg_tle.sql"
echo "$out/${name}_pg_tle.sql, $out/$name.sql: $name $version${1:+ (updates from $*)}"
