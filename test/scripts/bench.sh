#!/usr/bin/env bash
# The performance benchmark: starts two servers and runs sf_bench, which
# measures snowflake_nextval() side by side with the floor, nextval() CACHE 1 /
# CACHE 100 and gen_random_uuid(), and the SQL edition's snowflake_nextval()
# against nextval() CACHE 1 (see test/client/bench.cpp), then the SQL
# edition's round trips with fsync on (test/scripts/sql_edition_roundtrip.sh),
# then sf_sweep,
# the same against a sweep of concurrent sessions (see test/client/sweep.cpp),
# then test/scripts/time_bench.sh, time predicates on snowflake ids (a
# one-day window asked four ways, on a table of its own server), then
# test/scripts/rekey_bench.sh, re-keying 1,000,000 rows from a time column
# against the same by hand (its 10,000,000-row figure is a run of its own).
#
#   bash test/scripts/bench.sh [--quick] [--sessions "1 2 4 8 16 32 64"]
#        [--sweep-n N] [--sweep-only | --no-sweep] [--time-only | --no-time] [--no-rekey]
#        [WORKDIR] [-- SF_BENCH_OPTIONS...]
#                                     (as root; servers run as postgres)
# e.g. `bash test/scripts/bench.sh -- --only insert --reps 7` re-runs one section
# (see test/client/sf_bench --help); `--sweep-only --sessions "1 16 64"` runs
# only the sweep; --time-only only the time predicates, --no-time skips them;
# --no-rekey skips the re-key benchmark.
# `bash test/scripts/bench.sh --releases REV [REV...]` is the release against
# release benchmark instead (test/scripts/bench_releases.sh, whose options
# follow --releases): REV's builds and the working tree's, side by side.
# The sweep is the figure to take on a machine with many
# cores: on 2 CPUs, 64 sessions mostly measure the scheduler.
#
# Server A: default layout (41/5/5/12, 4096 ids/ms), worker_id 1.
# Server B: sequence_bits 16, worker_bits 3, datacenter_bits 3, worker_id 1, so
#           the per-ms cap does not hide the generator's own cost.
# Both: fsync off, jit off, autovacuum off, shared_buffers 512MB (the 4M-row
# insert table stays in memory).  Ports 54410/54411 (SF_BENCH_PORT sets the
# first), directories under /var/tmp/h-bench unless WORKDIR is given.
#
# --quick: tiny sizes, 2 repetitions (sweep: sessions 1 2 4, 1 repetition),
# seconds; the test suite runs it to prove the benchmark works.  No timing assertions anywhere: the exit status is
# non-zero only on an error.  Full mode takes a few minutes on 2 cores.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../lib/common.sh"

QUICK=()
DIR=/var/tmp/h-bench
EXTRA=()
SESSIONS=""
SWEEP_N=""
BENCH=1
SWEEP=1
TIME=1
REKEY=1
ARGS="$*"
while [ $# -gt 0 ]; do
    case $1 in
        --quick) QUICK=(--quick) ;;
        --sessions) SESSIONS=$2; shift ;;
        --sweep-n) SWEEP_N=$2; shift ;;
        --sweep-only) BENCH=0 ;;
        --no-sweep) SWEEP=0 ;;
        --time-only) BENCH=0; SWEEP=0 ;;
        --no-time) TIME=0 ;;
        --no-rekey) REKEY=0 ;;
        --releases) shift; exec bash "$HERE/bench_releases.sh" "$@" ;;
        --) shift; EXTRA=("$@"); break ;;
        -h|--help) sed -n '2,35p' "${BASH_SOURCE[0]}"; exit 0 ;;
        -*) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
        *) DIR=$1 ;;
    esac
    shift
done
if [ "$BENCH" = 0 ] && [ "$SWEEP" = 0 ]; then
    [ "$TIME" = 1 ] || exit 0
    exec bash "$HERE/time_bench.sh" "${QUICK[@]}" "$DIR/time"
fi
PORT_A=${SF_BENCH_PORT:-54410}
PORT_B=$((PORT_A + 1))
DIR_A=$DIR/a
DIR_B=$DIR/b
CLIENT_DIR="$HERE/../client"
CLIENT="$CLIENT_DIR/sf_bench"

SWEEP_CLIENT="$CLIENT_DIR/sf_sweep"
if [ ${#QUICK[@]} -gt 0 ]; then
    SESSIONS=${SESSIONS:-1 2 4}
    SWEEP_N=${SWEEP_N:-40000}
    SWEEP_REPS=1
else
    SESSIONS=${SESSIONS:-1 2 4 8 16 32 64}
    SWEEP_N=${SWEEP_N:-8000000}
    SWEEP_REPS=3
fi

# Built here if the suite's client build has not done it already.
make -s -C "$CLIENT_DIR" sf_bench sf_sweep

cleanup() {
    local rc=$?
    if [ "$rc" -ne 0 ]; then
        for d in "$DIR_A" "$DIR_B"; do
            [ -f "$d/server.log" ] && { echo "--- last lines of $d/server.log"; tail -n 20 "$d/server.log"; } >&2
        done
    fi
    sf_server_stop "$DIR_A" || true
    sf_server_stop "$DIR_B" || true
    exit "$rc"
}
trap cleanup EXIT

mkdir -p "$DIR"
COMMON=("shared_preload_libraries = 'snowflake'" "snowflake.worker_id = 1"
        "max_connections = 100" "jit = off" "autovacuum = off" "shared_buffers = 512MB")
sf_server_init "$DIR_A" "$PORT_A" "${COMMON[@]}"
sf_server_init "$DIR_B" "$PORT_B" "${COMMON[@]}" \
    "snowflake.sequence_bits = 16" "snowflake.worker_bits = 3" "snowflake.datacenter_bits = 3"
sf_server_start "$DIR_A"
sf_server_start "$DIR_B"

for d in "$DIR_A" "$DIR_B"; do
    sf_psql "$d" -d postgres <<'SQL'
CREATE EXTENSION snowflake;
CREATE SEQUENCE s1 CACHE 1;
CREATE SEQUENCE s100 CACHE 100;
-- One table per insert variant, no index: the benchmark measures the id
-- generator, and an index's cost would dominate every variant alike.
CREATE UNLOGGED TABLE t_const (id bigint DEFAULT 0, v integer);
CREATE UNLOGGED TABLE t_sf (id bigint DEFAULT snowflake_nextval(), v integer);
CREATE UNLOGGED TABLE t_s1 (id bigint DEFAULT nextval('s1'), v integer);
CREATE UNLOGGED TABLE t_fill (k integer, x bigint);
-- UUID keys for comparison: gen_random_uuid() (v4, random) everywhere,
-- uuidv7() (time-ordered) where the server has it (PostgreSQL 18).
CREATE UNLOGGED TABLE t_uuid4 (id uuid DEFAULT gen_random_uuid(), v integer);
DO $$
BEGIN
    IF current_setting('server_version_num')::int >= 180000 THEN
        CREATE UNLOGGED TABLE t_uuid7 (id uuid DEFAULT uuidv7(), v integer);
    END IF;
END $$;
SQL
done

# The SQL edition (docs/managed.md), on server A in a schema of its own (its
# functions have the C extension's names), for sf_bench's section (i).
make -s -C "$HERE/../.." sql-edition DISTDIR="$DIR/dist" >/dev/null
sf_psql "$DIR_A" -d postgres -c 'CREATE SCHEMA sqled' -c 'SET search_path = sqled' \
    -f "$DIR/dist/snowflake_sql.sql" -c 'SELECT sqled.snowflake_configure(worker_id => 2)' >/dev/null
# For sf_bench's ceilings of the SQL edition: a PL/pgSQL function that does
# nothing but take a sequence value, and a sequence to read as a bound.
sf_psql "$DIR_A" -d postgres -c "CREATE FUNCTION bench_plpgsql_nextval() RETURNS bigint
    LANGUAGE plpgsql AS \$\$BEGIN RETURN nextval('s1'); END\$\$" \
    -c 'CREATE SEQUENCE bench_bound' -c "SELECT nextval('bench_bound')" >/dev/null

CMD="bash test/scripts/bench.sh $ARGS"
# Which build was measured: the installed library changes as the code does.
SO="$("$(sf_pg_config)" --pkglibdir)/snowflake.so"
EXT_VERSION=$(sf_psql "$DIR_A" -d postgres -At -c "SELECT extversion FROM pg_extension WHERE extname = 'snowflake'")
BUILD="extension $EXT_VERSION, $SO installed $(date -u -r "$SO" '+%Y-%m-%d %H:%M:%S UTC'), sha256 $(sha256sum "$SO" | cut -c1-16)"
if REV=$(git -C "$HERE/../.." rev-parse --short HEAD 2>/dev/null); then
    BUILD="$BUILD, source tree at commit $REV$(git -C "$HERE/../.." diff --quiet HEAD -- src 2>/dev/null || echo ' (src/ modified)')"
fi
echo "command: ${CMD% }"
echo "build:   $BUILD"
echo "servers: fsync=off (no durability needed for a benchmark), jit=off (JIT compilation would"
echo "         distort per-row costs), autovacuum=off (it would compete for the 2 cores after the"
echo "         inserts), shared_buffers=512MB, max_connections=100; client and servers share the machine"
echo

if [ "$BENCH" = 1 ]; then
    "$CLIENT" "${QUICK[@]}" "${EXTRA[@]}" \
        --conn-a "host=$DIR_A port=$PORT_A user=postgres dbname=postgres" \
        --conn-b "host=$DIR_B port=$PORT_B user=postgres dbname=postgres" \
        --note "command: ${CMD% }" \
        --note "build: $BUILD" \
        --note "servers started by bench.sh with fsync=off, jit=off (JIT would distort per-row costs), autovacuum=off, shared_buffers=512MB; inserts go to UNLOGGED tables without an index (the generator, not index maintenance, is measured)"
fi

if [ "$BENCH" = 1 ]; then
    # (i') The SQL edition, one id per round trip, on a server of its own with
    # fsync and synchronous_commit on (the servers above run with fsync off).
    echo
    SF_RT_BENCH_PORT=${SF_RT_BENCH_PORT:-$((PORT_A + 4))} bash "$HERE/sql_edition_roundtrip.sh" \
        "${QUICK[@]}" "$DIR/rt"
fi

if [ "$SWEEP" = 1 ]; then
    echo
    echo "## (g) Sessions sweep: $SWEEP_N values split over c sessions ($(nproc) CPUs here)"
    echo
    "$SWEEP_CLIENT" --conn "host=$DIR_A port=$PORT_A user=postgres dbname=postgres" \
        --label "server A (default layout)" --sessions "$SESSIONS" --n "$SWEEP_N" --reps "$SWEEP_REPS"
    "$SWEEP_CLIENT" --conn "host=$DIR_B port=$PORT_B user=postgres dbname=postgres" \
        --label "server B (sequence_bits 16)" --sessions "$SESSIONS" --n "$SWEEP_N" --reps "$SWEEP_REPS"
fi

if [ "$TIME" = 1 ]; then
    # Its own server: the two above are stopped so that they take nothing
    # from it.
    sf_server_stop "$DIR_A"
    sf_server_stop "$DIR_B"
    echo
    SF_TIME_BENCH_PORT=${SF_TIME_BENCH_PORT:-$((PORT_A + 2))} bash "$HERE/time_bench.sh" "${QUICK[@]}" "$DIR/time"
fi

if [ "$REKEY" = 1 ]; then
    sf_server_stop "$DIR_A"
    sf_server_stop "$DIR_B"
    echo
    REKEY_ROWS=()
    [ ${#QUICK[@]} -gt 0 ] || REKEY_ROWS=(--rows 1000000)
    SF_REKEY_BENCH_PORT=${SF_REKEY_BENCH_PORT:-$((PORT_A + 3))} bash "$HERE/rekey_bench.sh" "${QUICK[@]}" \
        "${REKEY_ROWS[@]}" "$DIR/rekey"
fi
