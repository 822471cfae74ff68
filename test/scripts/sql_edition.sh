#!/usr/bin/env bash
# The SQL edition's suite (test/sql_edition/*.pl), on the PostgreSQL of
# PG_CONFIG / PG_MAJOR:
#
#   bash test/scripts/sql_edition.sh WORKDIR [TAP_FILE...]
#
# As root, with the C extension built and installed for that PostgreSQL (the
# suites before it do that) and pg_tle's build dependencies (gcc, make, flex,
# bison, libkrb5-dev).  Makes dist/ (make sql-edition), builds pg_tle from its
# source tarball (test/lib/pgtle.sh; found like every third-party source,
# test/lib/thirdparty.sh) into a copy of the PostgreSQL installation without
# snowflake's files -- the managed server runs from it -- and runs the TAP
# files (default all) as postgres.  Where pg_tle cannot be built (its source
# is missing, or pg_tle does not support this PostgreSQL major) only the files
# that need no pg_tle run (the plain script, the conformance, moving between
# the editions), and it says so.  SNOWFLAKE_PGTLE_TARBALL names the tarball
# (else it is looked up from this tree).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/../lib/common.sh"
. "$HERE/../lib/pgtle.sh"

WORK=${1:?usage: sql_edition.sh WORKDIR [TAP_FILE...]}
shift
TESTS=${*:-$(cd "$ROOT" && echo test/sql_edition/*.pl)}

major=$("$(sf_pg_config)" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
# The files that need a managed server (pg_tle), and those that do not.
NEED_PGTLE="test/sql_edition/001_managed_pg_tle.pl test/sql_edition/002_clock.pl test/sql_edition/005_updates_and_dumps.pl test/sql_edition/009_update_from_1.5.pl"
tarball=${SNOWFLAKE_PGTLE_TARBALL:-}
why=""
if ! sf_pgtle_supports "$major"; then
    why=$(sf_pgtle_why_not "$major")
elif [ -z "$tarball" ] && ! tarball=$(sf_pgtle_tarball "$ROOT" "$major" 2>&1); then
    why=$(echo "$tarball" | head -n 1)
fi

rm -rf "$WORK"
mkdir -p "$WORK"
chown postgres: "$WORK"
env=()
if [ -z "$why" ]; then
    bindir=$(sf_pgtle_tree "$WORK/pgtle-root" "$tarball" | tee /dev/stderr | tail -n 1)
    env+=(SNOWFLAKE_PGTLE_BINDIR="$bindir")
else
    echo "without pg_tle ($why): not running $NEED_PGTLE"
    for t in $NEED_PGTLE; do TESTS=${TESTS//$t/}; done
    TESTS=$(echo "$TESTS" | tr -s ' ')
    [ -n "${TESTS// /}" ] || { echo "nothing to run"; exit 0; }
fi
as_postgres make -s -C "$ROOT" sql-edition
as_postgres make -s -C "$ROOT/test/client" sf_concurrency
as_postgres env PG_TEST_TIMEOUT_DEFAULT=180 "${env[@]}" \
    make -C "$ROOT" prove-installcheck PROVE_TESTS="$TESTS"
