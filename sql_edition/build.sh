#!/bin/sh
# Makes the two ways to install the SQL edition from its source,
# sql_edition/src/*.sql (make sql-edition runs this):
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
# The source is one file per object (or family of objects), run in the order
# of their names: NNN_name.sql, an object after those it needs.  Their text,
# in that order, is the extension script, each update script and the body of
# the plain script (the source is written to run as any of them), so they
# cannot differ.
# Both files are one transaction: a failure leaves nothing half-installed.
# Needs only a POSIX shell and sed: no PostgreSQL.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: build.sh OUTDIR VERSION [EARLIER_VERSION...]" >&2; exit 2; }
out=$1
version=$2
shift 2

name=snowflake_sql
# shellcheck disable=SC2016  # a dollar-quote tag, not an expansion
tag='$_snowflake_sql_$'
# shellcheck disable=SC2016
if grep -l '\$_snowflake_sql_' "$here"/src/*.sql >&2; then
    echo "build.sh: the files above contain a quote tag \$_snowflake_sql_..." >&2
    exit 1
fi
sh "$here/check.sh" "$here"/src/*.sql
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
cat "$here"/src/*.sql | sed "s/@SNOWFLAKE_SQL_VERSION@/$version/g" >"$script"
# For a test of interrupts only (test/sql_edition/007_interrupts.pl):
# SNOWFLAKE_SQL_BOUNDARIES=1 puts a call of
# @extschema@.snowflake_sql_test_boundary(N) -- a function the test makes --
# at every statement boundary of the functions that take the lock: after the
# body's BEGIN, a block's BEGIN and every line that ends a statement.  Each
# call is commented with the statement before it.
if [ -n "${SNOWFLAKE_SQL_BOUNDARIES:-}" ]; then
    awk '
    /^CREATE OR REPLACE FUNCTION @extschema@\.(snowflake_sql_next_slow|snowflake_start_above)\(/ { fn = 1 }
    fn && /^BEGIN$/ { body = 1 }
    { print }
    body && /^END$/ { body = 0; fn = 0; next }
    body && (/^ *BEGIN$/ || /; *(--.*)?$/) {
        match($0, /^ */)
        ind = substr($0, 1, RLENGTH)
        if ($0 ~ /^BEGIN$/) ind = "    "
        what = $0
        sub(/^ */, "", what)
        gsub(/[^A-Za-z0-9_ .:=<>()@-]/, "", what)
        printf "%sPERFORM @extschema@.snowflake_sql_test_boundary(%d);  -- after: %s\n", ind, ++n, substr(what, 1, 60)
    }' "$script" >"$script.b"
    mv "$script.b" "$script"
fi

header() {
    cat <<EOF
-- snowflake $name $version: the SQL edition of snowflake (docs/managed.md).
-- Made by \`make sql-edition\` from sql_edition/src/*.sql; do not edit.
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
    # The source names the install schema @extschema@, which CREATE EXTENSION
    # substitutes; here it is the current schema, substituted before the text
    # runs.  An error is raised again without the text as its context.
    cat <<'EOF'
DO $_snowflake_sql_do_$
DECLARE
    code text;
    msg text;
    det text;
    hint text;
BEGIN
    EXECUTE pg_catalog.replace(
EOF
    quoted
    cat <<'EOF'
        , '@extschema@',
        COALESCE(pg_catalog.quote_ident(pg_catalog.current_schema()), '"@extschema@"'));
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
                            det = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
    IF det = '' AND hint = '' THEN
        RAISE EXCEPTION USING ERRCODE = code, MESSAGE = msg;
    ELSIF hint = '' THEN
        RAISE EXCEPTION USING ERRCODE = code, MESSAGE = msg, DETAIL = det;
    ELSIF det = '' THEN
        RAISE EXCEPTION USING ERRCODE = code, MESSAGE = msg, HINT = hint;
    END IF;
    RAISE EXCEPTION USING ERRCODE = code, MESSAGE = msg, DETAIL = det, HINT = hint;
END
$_snowflake_sql_do_$;
EOF
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
