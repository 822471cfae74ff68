#!/usr/bin/env bash
# PostgreSQL's own regression tests on the installed server, run on this
# machine once without snowflake and again with snowflake preloaded (node
# identity: datacenter 3, worker 7), every other setting the same.  Loading
# the library must change nothing else in the server, so the suite passes iff
# the SET of failing tests is the same in every run.  Failures common to all
# runs are the environment's: printed, not judged.
#
#   bash test/scripts/core_regress.sh WORKDIR [SUITE]   (as root; servers run as postgres)
#
# SUITE:
#   core                (default) src/test/regress, parallel_schedule, with
#                       parallel query forced in both runs (force_parallel_mode
#                       = regress on 15, debug_parallel_query = regress on 16
#                       and later): every query goes through a parallel
#                       worker, which restores the leader's settings.
#   pg_stat_statements  contrib/pg_stat_statements' REGRESS list with its own
#                       regress configuration (the library preloaded): once
#                       alone, then beside snowflake in both orders of
#                       shared_preload_libraries.
#
# The tests come from the distribution's source package of the installed
# server (test/lib/pgsource.sh: downloaded once, then cached under
# SNOWFLAKE_PGSRC_DIR, default /var/tmp/snowflake-pgsrc); regress.so and
# contrib/spi's autoinc and refint are built from it against the server's
# headers.  PG_CONFIG (or PG_MAJOR) picks the server.  Rerunnable: WORKDIR is
# emptied first.  Each run's clusters are removed after it (its outputs and
# server log stay) unless SNOWFLAKE_KEEP_DATA=1.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../lib/common.sh"
. "$HERE/../lib/pgsource.sh"

WORK=${1:-/var/tmp/snowflake-core-regress}
SUITE=${2:-core}
PORT=${SF_PORT:-54340}
PGC=$(sf_pg_config)
BINDIR=$("$PGC" --bindir)
MAJOR=$("$PGC" --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
# The same in every run: the C locale (no locale of the machine leaks in), no
# client settings from the environment.
export LC_ALL=C
unset PGOPTIONS PGDATABASE PGSERVICE PGUSER PGHOST PGPORT LANGUAGE || true

RUNS=()
stop_all() {
    local r
    for r in "${RUNS[@]}"; do sf_server_stop "$WORK/$r" 2>/dev/null || true; done
}
trap stop_all EXIT
if [ -d "$WORK" ]; then
    for d in "$WORK"/*/; do [ -d "$d/data" ] && sf_server_stop "${d%/}" 2>/dev/null; done
fi
rm -rf "$WORK"
mkdir -p "$WORK"
chown postgres: "$WORK"

TREE=$(sf_pgsrc_ensure "$MAJOR")
sf_pgsrc_report "$TREE" "$MAJOR"
echo "server: $("$BINDIR/postgres" --version)"
PG_REGRESS=$("$PGC" --pkglibdir)/pgxs/src/test/regress/pg_regress
SNOWFLAKE_NODE=("snowflake.datacenter_id = 3" "snowflake.worker_id = 7")

# Per suite: the test directory, pg_regress's test arguments, the settings
# every run shares, and one shared_preload_libraries per run (RUNS: name,
# LIBS: its libraries; the first run is the one without snowflake).
case $SUITE in
    core)
        if [ "$MAJOR" -ge 16 ]; then FORCE=debug_parallel_query; else FORCE=force_parallel_mode; fi
        INPUT=$TREE/src/test/regress
        LIB=$(sf_pgsrc_modules "$TREE" "$PGC" src/test/regress/regress.c contrib/spi/autoinc.c \
            contrib/spi/refint.c)
        TESTS=(--dlpath="$LIB" --schedule="$INPUT/parallel_schedule" --max-concurrent-tests=20)
        # What pg_regress's own temporary instance configures, and parallel
        # query forced.
        COMMON=(
            "$FORCE = regress"
            "max_prepared_transactions = 2"
            "log_autovacuum_min_duration = 0"
            "log_checkpoints = on"
            "log_line_prefix = '%m %b[%p] %q%a '"
            "log_lock_waits = on"
            "log_temp_files = 128kB"
        )
        RUNS=(without with)
        LIBS=("" "snowflake")
        ;;
    pg_stat_statements)
        INPUT=$TREE/contrib/pg_stat_statements
        # The REGRESS list of its Makefile (continuation lines joined).
        read -r -a TESTS < <(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$INPUT/Makefile" |
            sed -n 's/^REGRESS *= *//p')
        # Its regress configuration, but for the libraries.
        mapfile -t COMMON < <(grep -v '^ *shared_preload_libraries' "$INPUT/pg_stat_statements.conf" |
            grep -v '^ *\(#\|$\)' || true)
        RUNS=(without with-after with-before)
        LIBS=("pg_stat_statements" "pg_stat_statements,snowflake" "snowflake,pg_stat_statements")
        ;;
    *) echo "unknown suite $SUITE (core, pg_stat_statements)"; exit 2 ;;
esac
echo "suite $SUITE: ${#TESTS[@]} arguments to pg_regress; settings of every run:"
printf '    %s\n' "${COMMON[@]:-(none)}"

# The names of the tests a pg_regress output reports, and of those it reports
# as failed: 15's format ("test name ... ok", "     name ... FAILED") and the
# TAP format of 16 and later ("ok 1 - name", "not ok 3 + name").
all_tests() {
    sed -n -E -e 's/^(not ok|ok) +[0-9]+ +[-+]? *([^ ]+).*/\2/p' \
        -e 's/^(test +| +)([^ ]+) +\.\.\. +.*/\2/p' "$1" | sort -u
}
failed_tests() {
    sed -n -E -e 's/^not ok +[0-9]+ +[-+]? *([^ ]+).*/\1/p' \
        -e 's/^(test +| +)([^ ]+) +\.\.\. +(FAILED|failed).*/\2/p' "$1" | sort -u
}

# Takes an id from the node and checks that it carries datacenter 3, worker 7
# (decoded by snowflake_parse, which runs in a parallel worker where parallel
# query is forced).  A failure is counted and the suite still runs: its
# comparison says more.
ids_ok=1
check_node() {
    local node
    node=$(sf_psql "$1" -d snowflake_check -At -c \
        "SELECT datacenter_id || '/' || worker_id FROM snowflake_parse(snowflake_nextval())" 2>&1) ||
        true
    echo "   an id $2 the tests: datacenter/worker $node"
    [ "$node" = 3/7 ] || { echo "   FAILED: expected ids from datacenter 3, worker 7"; ids_ok=0; }
}

# run_once NAME LIBRARIES: a fresh server, the tests against it.
run_once() {
    local name=$1 libs=$2 dir=$WORK/$1 start=$SECONDS conf=()
    conf=("${COMMON[@]}" "shared_preload_libraries = '$libs'")
    [[ ,$libs, == *,snowflake,* ]] && conf+=("${SNOWFLAKE_NODE[@]}")
    sf_server_init "$dir" "$PORT" "${conf[@]}"
    sf_server_start "$dir"
    local shown
    shown="shared_preload_libraries = '$(sf_psql "$dir" -At -c 'SHOW shared_preload_libraries')'"
    if [ -n "${FORCE:-}" ]; then shown="$shown, $FORCE = $(sf_psql "$dir" -At -c "SHOW $FORCE")"; fi
    echo "== $name: $shown"
    if [[ ,$libs, == *,snowflake,* ]]; then
        sf_psql "$dir" -c 'CREATE DATABASE snowflake_check'
        sf_psql "$dir" -d snowflake_check -c 'CREATE EXTENSION snowflake'
        check_node "$dir" before
    fi
    mkdir -p "$dir/out"
    chown postgres: "$dir/out"
    # pg_regress exits non-zero when a test fails: the sets are compared below.
    as_postgres "$PG_REGRESS" --inputdir="$INPUT" --outputdir="$dir/out" --bindir="$BINDIR" \
        --host="$dir" --port="$PORT" "${TESTS[@]}" >"$dir/pg_regress.out" 2>&1 || true
    if [[ ,$libs, == *,snowflake,* ]]; then check_node "$dir" after; fi
    sf_server_stop "$dir"
    # The outputs, the diffs and the server log stay; the cluster goes (hundreds of MB).
    [ "${SNOWFLAKE_KEEP_DATA:-0}" = 1 ] || rm -rf "$dir/data"
    all_tests "$dir/pg_regress.out" >"$dir/all"
    failed_tests "$dir/pg_regress.out" >"$dir/failed"
    echo "   $(wc -l <"$dir/all") tests, $(wc -l <"$dir/failed") failed," \
        "$(grep -c 'terminated by signal' "$dir/server.log" || true) server processes ended by" \
        "a signal; $((SECONDS - start)) s"
}

for i in "${!RUNS[@]}"; do run_once "${RUNS[$i]}" "${LIBS[$i]}"; done

ok=$ids_ok
base=${RUNS[0]}
[ "$SUITE" = core ] && min=100 || min=2
if [ "$(wc -l <"$WORK/$base/all")" -lt "$min" ]; then
    echo "the run $base reported only $(wc -l <"$WORK/$base/all") tests"
    ok=0
fi
for r in "${RUNS[@]}"; do
    echo "failed in $r ($(wc -l <"$WORK/$r/failed") of $(wc -l <"$WORK/$r/all")):" \
        "$(tr '\n' ' ' <"$WORK/$r/failed")"
done
for r in "${RUNS[@]:1}"; do
    if ! cmp -s "$WORK/$base/all" "$WORK/$r/all"; then
        echo "DIFFERENT: $base and $r did not run the same tests"
        ok=0
    fi
    only_with=$(comm -13 "$WORK/$base/failed" "$WORK/$r/failed")
    only_without=$(comm -23 "$WORK/$base/failed" "$WORK/$r/failed")
    if [ -z "$only_with$only_without" ]; then
        echo "$r: the same failing tests as $base"
        continue
    fi
    ok=0
    echo "DIFFERENT: failed only in $r: $(echo ${only_with:-none})"
    echo "           failed only in $base: $(echo ${only_without:-none})"
    # The diffs of the first few tests that failed only with the library.
    for t in $(sed -n 1,5p <<<"$only_with"); do
        awk -v t="$t" '/^diff / { show = index($0, "/" t ".out") > 0 } show && n++ < 30' \
            "$WORK/$r/out/regression.diffs"
    done
done
[ "$ok" = 1 ]
