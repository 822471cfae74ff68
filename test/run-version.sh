#!/usr/bin/env bash
# The suites of one PostgreSQL major, on the system this runs on: the machine
# itself for 15 (Debian 12), a Debian root for 17, 18 and 19 (test/run-all.sh
# builds the roots and runs this inside them).  As root, with the build and
# test dependencies installed:
#
#   bash test/run-version.sh VERSION WORKDIR
#
# Copies the tree to WORKDIR/src (owned by postgres), prints a header line
# with the server's SELECT version(), then one line per suite, named
# pgVERSION/SUITE, and writes "PASSED FAILED" to WORKDIR/counts
# (and the names of failed suites to WORKDIR/failed-suites).
# Logs are in WORKDIR/logs.  Exits non-zero if a suite failed.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
V=${1:?usage: run-version.sh VERSION WORKDIR}
WORK=${2:?usage: run-version.sh VERSION WORKDIR}
export PG_MAJOR=$V PG_CONFIG=/usr/lib/postgresql/$V/bin/pg_config
export PATH="/usr/lib/postgresql/$V/bin:$PATH"
. "$ROOT/test/lib/common.sh"
. "$ROOT/test/lib/pgtle.sh"

LOGS=$WORK/logs
SRC=$WORK/src
passed=0
failed=0

# run_suite NAME COMMAND...: runs a suite, shows its tail on failure.
run_suite() {
    local name="pg$V/$1"
    shift
    local log="$LOGS/${name#*/}.log"
    local start=$SECONDS
    printf '%-34s ' "$name"
    if "$@" >"$log" 2>&1; then
        passed=$((passed + 1))
        echo "ok ($((SECONDS - start)) s)"
    else
        failed=$((failed + 1))
        echo "$name" >>"$WORK/failed-suites"
        echo "FAILED ($((SECONDS - start)) s), last lines of $log:"
        tail -n 40 "$log" | sed 's/^/    /'
        # pg_regress leaves its diffs next to the tests.
        [ -f "$SRC/regression.diffs" ] && head -n 80 "$SRC/regression.diffs" | sed 's/^/    /'
        rm -f "$SRC/regression.diffs"
    fi
}

# Builds with every warning on and fails on any warning, then installs.
build_and_install() {
    local out=$WORK/build.out
    make -C "$SRC" -j2 2>&1 | tee "$out"
    [ "${PIPESTATUS[0]}" -eq 0 ] || return 1
    if grep -n 'warning:' "$out"; then
        echo "the build is not warning-free"
        return 1
    fi
    make -C "$SRC" install
}

# tap [VAR=VALUE...] [MAKE_ARGS...]: TAP tests (prove_installcheck starts
# from a clean tmp_check, so these suites run one after another).
tap() {
    local envs=()
    while [ $# -gt 0 ] && [[ $1 == SNOWFLAKE_*=* ]]; do envs+=("$1"); shift; done
    as_postgres env PG_TEST_TIMEOUT_DEFAULT=180 "${envs[@]}" make -C "$SRC" prove-installcheck "$@"
}

[ -x "$PG_CONFIG" ] || { echo "PostgreSQL $V is not installed here ($PG_CONFIG)"; exit 1; }
rm -rf "$WORK"
mkdir -p "$LOGS"
sf_copy_tree "$ROOT" "$SRC"
chown postgres: "$WORK"

# The header line: which PostgreSQL the suites run on (a server of its own,
# single-user, in a scratch cluster).
server_version() {
    local d=$WORK/version log=$LOGS/server-version.log
    as_postgres initdb -N -A trust -U postgres -D "$d/data" >"$log" 2>&1 || { tail -n 5 "$log"; return 1; }
    echo "SELECT version();" | as_postgres postgres --single -D "$d/data" -j postgres 2>>"$log" |
        sed -n 's/^[[:space:]]*1: version = "\(.*\)".*/\1/p'
    rm -rf "$d"
}
echo "pg$V: $(server_version)"

run_suite build-and-install build_and_install
chown -R postgres: "$SRC"
run_suite regress-preloaded as_postgres make -C "$SRC" installcheck
run_suite regress-not-preloaded as_postgres make -C "$SRC" installcheck-nopreload
# The time tests' final plans carry none of the conditions the planner hooks
# add for plan-time pruning (issue 45).
run_suite regress-plans as_postgres make -C "$SRC" installcheck-plans
# Queries without snowflake functions: the same plans and rows with and
# without the library (issue 24).
run_suite planner-diff bash "$SRC/test/scripts/planner_diff.sh" "$WORK/planner-diff"
run_suite client-build as_postgres make -C "$SRC/test/client"
run_suite concurrency-2-databases bash "$SRC/test/scripts/concurrency.sh" "$WORK/concurrency"
if [ "$V" = 15 ]; then
    # Application clients (issue 13): about the client libraries, so once.
    run_suite client-sqlalchemy bash "$SRC/test/scripts/clients.sh" sqlalchemy "$WORK/clients-sqlalchemy"
    run_suite client-node-pg bash "$SRC/test/scripts/clients.sh" node "$WORK/clients-node"
    run_suite client-libpqxx-batch bash "$SRC/test/scripts/clients.sh" libpqxx "$WORK/clients-libpqxx"
fi
# Every SQL example of README.md and docs/, with the output it shows.
run_suite docs-examples bash "$SRC/test/scripts/docs.sh" "$WORK/docs"
if [ "$V" = 18 ]; then
    # Django 5.2 is Debian unstable's: the model pattern docs/adopting.md shows.
    run_suite client-django bash "$SRC/test/scripts/clients.sh" django "$WORK/clients-django"
fi
# PostgreSQL's own regression tests with and without snowflake (issue 17):
# the core suite under forced parallel query, and pg_stat_statements' tests
# beside it.  They need the server's source package (downloaded once, then
# cached); 15 on every run, and of 17 and 18 the versions in
# SNOWFLAKE_CORE_REGRESS_VERSIONS (default "15 18": the core suite takes a few
# minutes per version on 2 cores).
if [[ " ${SNOWFLAKE_CORE_REGRESS_VERSIONS:-15 18} " == *" $V "* ]]; then
    run_suite core-regress-vs-snowflake bash "$SRC/test/scripts/core_regress.sh" "$WORK/core-regress" core
    run_suite pg-stat-statements-regress bash "$SRC/test/scripts/core_regress.sh" "$WORK/pgss-regress" \
        pg_stat_statements
fi
run_suite bench-quick bash "$SRC/test/scripts/bench.sh" --quick "$WORK/bench"
# The SQL edition (docs/managed.md): a managed server with pg_tle built from
# its source (next to the checkout, as Citus's), the plain script, the
# conformance with the C extension, moving between them.  pg_tle 1.5.2 on 15
# and 17, its 1.5.3-dev on 18 and 19 (test/lib/pgtle.sh): without pg_tle's
# source, only the tests that need no pg_tle run, and a line says why the
# others do not.
pgtle_env=()
if sf_pgtle_supports "$V" && pgtle_tarball=$(sf_pgtle_tarball "$ROOT" "$V" 2>"$LOGS/sql-edition-source.log"); then
    pgtle_env=(SNOWFLAKE_PGTLE_TARBALL="$pgtle_tarball")
else
    sf_pgtle_supports "$V" && why=$(head -n 1 "$LOGS/sql-edition-source.log") ||
        why=$(sf_pgtle_why_not "$V")
    printf '%-34s SKIPPED: %s\n' "pg$V/sql-edition-on-pg_tle" "$why"
fi
run_suite sql-edition env "${pgtle_env[@]}" bash "$SRC/test/scripts/sql_edition.sh" "$WORK/sql-edition"
run_suite load-and-crash bash "$SRC/test/scripts/load_crash.sh" --quick "$WORK/load"
run_suite tap tap
if [ -n "${SNOWFLAKE_UPGRADE_FROM:-}" ]; then
    # pg_upgrade and pg_dump/restore from an older major installed next to
    # this one (run-all.sh copies Debian 12's PostgreSQL 15, with this tree's
    # build of snowflake, into the root of 17; the root of 19 has Debian
    # unstable's 18, and run-all.sh builds snowflake for it).
    old=/usr/lib/postgresql/$SNOWFLAKE_UPGRADE_FROM
    run_suite "upgrade-from-$SNOWFLAKE_UPGRADE_FROM" tap SNOWFLAKE_OLD_INSTALL="$old" \
        SNOWFLAKE_DUMP_SOURCE_INSTALL="$old" PROVE_TESTS="test/upgrade/*.pl test/t/020_dump_restore.pl"
fi
if [ -n "${SNOWFLAKE_CITUS:-}" ]; then
    # Citus clusters (coordinator and workers); run-all.sh builds Citus into
    # the root of 17 from its source next to the checkout and says so here.
    run_suite citus tap PROVE_TESTS="test/citus/*.pl"
fi

echo "$passed $failed" >"$WORK/counts"
[ "$failed" -eq 0 ]
