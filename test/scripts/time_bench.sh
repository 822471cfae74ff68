#!/usr/bin/env bash
# The time-predicate benchmark: starts a server, loads N rows made over 100
# days (ending now) into a table with an id primary key, into one
# partitioned by month and into one indexed on the time itself, and runs
# sf_time_bench, which times a one-day window asked the natural way
# (snowflake_timestamp(id) >= a AND < b), with the operator (id <@
# tstzrange(a, b)), with hand-written snowflake_min_id / snowflake_max_id
# bounds, and as the plain filter (snowflake.time_predicates off), warm and
# cold; then joins on the time and the time's expression index, with
# snowflake.time_predicates on and off (see test/client/time_bench.cpp).
#
#   bash test/scripts/time_bench.sh [--quick] [--rows N] [WORKDIR]   (as root; the server runs as postgres)
#
# Default 10,000,000 rows (the figures in the docs; loading takes a few
# minutes on 2 cores); --quick: 100,000 rows and fewer repetitions, seconds,
# which the test suite runs (through bench.sh) to prove the benchmark works.
# Port 54412 (SF_TIME_BENCH_PORT), directory /var/tmp/h-time-bench unless
# WORKDIR is given.  No timing assertions: the exit status is non-zero only
# on an error (or when the variants return different rows).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../lib/common.sh"

QUICK=()
ROWS=""
DIR=/var/tmp/h-time-bench
ARGS="$*"
while [ $# -gt 0 ]; do
    case $1 in
        --quick) QUICK=(--quick) ;;
        --rows) ROWS=$2; shift ;;
        -h|--help) sed -n '2,18p' "${BASH_SOURCE[0]}"; exit 0 ;;
        -*) echo "time_bench.sh: unknown option $1" >&2; exit 2 ;;
        *) DIR=$1 ;;
    esac
    shift
done
if [ -z "$ROWS" ]; then
    if [ ${#QUICK[@]} -gt 0 ]; then ROWS=100000; else ROWS=10000000; fi
fi
PORT=${SF_TIME_BENCH_PORT:-54412}
CLIENT_DIR="$HERE/../client"
make -s -C "$CLIENT_DIR" sf_time_bench

cleanup() {
    local rc=$?
    if [ "$rc" -ne 0 ] && [ -f "$DIR/server.log" ]; then
        { echo "--- last lines of $DIR/server.log"; tail -n 20 "$DIR/server.log"; } >&2
    fi
    sf_server_stop "$DIR" || true
    exit "$rc"
}
trap cleanup EXIT

mkdir -p "$(dirname "$DIR")"
sf_server_init "$DIR" "$PORT" "shared_preload_libraries = 'snowflake'" "snowflake.worker_id = 1" \
    "jit = off" "autovacuum = off" "shared_buffers = 512MB" "max_wal_size = 4GB" \
    "max_parallel_workers_per_gather = 0"
sf_server_start "$DIR"

# Rows made over the 100 days before now, in id order as a node makes them;
# each id with node bits and a sequence, like real ones.
start=$SECONDS
sf_psql "$DIR" -d postgres -v rows="$ROWS" <<'SQL'
CREATE EXTENSION snowflake;
SET TimeZone = 'UTC';
CREATE TABLE orders (id bigint PRIMARY KEY, amount integer NOT NULL, note text NOT NULL);
INSERT INTO orders
SELECT snowflake_min_id(t) + (1 << 12) + g % 4096, g % 1000, 'order ' || g
FROM generate_series(0, :rows - 1) g,
     LATERAL (SELECT now() - interval '100 days' + g * (interval '100 days' / :rows) AS t) s;
CREATE TABLE orders_by_month (id bigint NOT NULL, amount integer NOT NULL, note text NOT NULL,
                              PRIMARY KEY (id)) PARTITION BY RANGE (id);
SELECT count(*) AS partitions
FROM snowflake_create_partitions('orders_by_month', date_trunc('month', now() - interval '100 days', 'UTC'),
                                 now() + interval '1 day', '1 month');
INSERT INTO orders_by_month SELECT * FROM orders;
-- The same rows indexed on their time (the IMMUTABLE form), without an
-- index on the id.
CREATE TABLE orders_by_time (id bigint NOT NULL, amount integer NOT NULL, note text NOT NULL);
INSERT INTO orders_by_time SELECT * FROM orders;
CREATE INDEX orders_by_time_ts ON orders_by_time (snowflake_timestamp(id, 1288834974657, 5, 5, 12));
-- Times of some orders (one in 4096), to join on.
CREATE TABLE marks (t timestamptz NOT NULL);
INSERT INTO marks SELECT snowflake_timestamp(id) FROM orders WHERE id % 4096 = 0;
VACUUM ANALYZE orders;
VACUUM ANALYZE orders_by_month;
VACUUM ANALYZE orders_by_time;
VACUUM ANALYZE marks;
SQL
echo "loaded $ROWS rows three times in $((SECONDS - start)) s"

CMD="bash test/scripts/time_bench.sh $ARGS"
SO="$("$(sf_pg_config)" --pkglibdir)/snowflake.so"
BUILD="$SO sha256 $(sha256sum "$SO" | cut -c1-16)"
if REV=$(git -C "$HERE/../.." rev-parse --short HEAD 2>/dev/null); then
    BUILD="$BUILD, source tree at commit $REV$(git -C "$HERE/../.." diff --quiet HEAD -- src 2>/dev/null || echo ' (src/ modified)')"
fi
RESTART="runuser -u postgres -- $(sf_bindir)/pg_ctl -D $DIR/data -l $DIR/server.log -m fast -w -t 60 restart >/dev/null"
"$CLIENT_DIR/sf_time_bench" "${QUICK[@]}" \
    --conn "host=$DIR port=$PORT user=postgres dbname=postgres" \
    --restart "cd / && $RESTART" \
    --note "Command: ${CMD% }; build: $BUILD." \
    --note "Load average (1, 5, 15 min) when the runs began: $(cut -d' ' -f1-3 /proc/loadavg)." \
    --note "Machine: $(nproc) CPUs ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo); server: shared_buffers 512MB, jit off, no parallel workers; client on the same machine."
echo
echo "Load average (1, 5, 15 min) when the runs ended: $(cut -d' ' -f1-3 /proc/loadavg)."
