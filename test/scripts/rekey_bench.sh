#!/usr/bin/env bash
# The re-key benchmark: snowflake_convert_column(..., time_column) against a
# hand-written conversion that does the same, side by side on one server.
#
#   bash test/scripts/rekey_bench.sh [--quick] [--rows "1000000 10000000"] [WORKDIR]
#                                    (as root; the server runs as postgres)
#
# For each size N: orders (id serial PRIMARY KEY, placed_at timestamptz, customer
# text) with N rows placed over five years in another order than their keys,
# and lines (id serial PRIMARY KEY, order_id integer REFERENCES orders, with
# an index, qty) with one line per order.  Each way starts from a copy of
# that database (CREATE DATABASE ... TEMPLATE) and, in one transaction, widens
# orders.id and lines.order_id to bigint, gives every order the id of its
# placed_at (the same ids both ways: the run compares them) and every line its
# order's new id, and checks the foreign key again:
#
#   convert   SELECT count(*) FROM snowflake_convert_column('orders', 'id',
#             time_column => 'placed_at'): batches of pages, progress NOTICEs
#             (shown), the checks and refusals of the function;
#   by hand   the statements a person would write: drop the foreign key, widen,
#             the same new keys into a temporary table, one UPDATE ... FROM per
#             table (hash or merge join), add the foreign key again.
#
# Default sizes 1,000,000 and 10,000,000 (the 10 M run takes most of an hour
# on 2 cores and about 10 GB of disk); --quick: 20,000 rows, which the test
# suite runs (through bench.sh) to prove the benchmark works.  Port 54413
# (SF_REKEY_BENCH_PORT), directory /var/tmp/h-rekey-bench unless WORKDIR is
# given.  No timing assertions: the exit status is non-zero only on an error,
# or when the two ways give different ids.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../lib/common.sh"

SIZES=""
QUICK=0
DIR=/var/tmp/h-rekey-bench
while [ $# -gt 0 ]; do
    case $1 in
        --quick) QUICK=1 ;;
        --rows) SIZES=$2; shift ;;
        -h|--help) sed -n '2,29p' "${BASH_SOURCE[0]}"; exit 0 ;;
        -*) echo "rekey_bench.sh: unknown option $1" >&2; exit 2 ;;
        *) DIR=$1 ;;
    esac
    shift
done
if [ -z "$SIZES" ]; then
    if [ "$QUICK" = 1 ]; then SIZES=20000; else SIZES="1000000 10000000"; fi
fi
PORT=${SF_REKEY_BENCH_PORT:-54413}

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
# The same settings for both ways: the WAL and the buffers of a server that
# is not tuned for bulk work, no parallel query, no JIT (the function turns it
# off for itself).
sf_server_init "$DIR" "$PORT" "shared_preload_libraries = 'snowflake'" "snowflake.worker_id = 1" \
    "jit = off" "autovacuum = off" "shared_buffers = 512MB" "max_wal_size = 8GB" \
    "max_parallel_workers_per_gather = 0" "max_parallel_maintenance_workers = 0"
sf_server_start "$DIR"
sf_psql "$DIR" -d postgres -c 'CREATE EXTENSION snowflake' >/dev/null

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# The hand-written way: what the function runs, as one would write it.
by_hand_sql() {
    cat <<'EOS'
BEGIN;
LOCK TABLE orders, lines IN ACCESS EXCLUSIVE MODE;
ALTER TABLE lines DROP CONSTRAINT lines_order_id_fkey;
ALTER TABLE orders ALTER COLUMN id TYPE bigint;
ALTER TABLE lines ALTER COLUMN order_id TYPE bigint;
SELECT datacenter_id AS dc, worker_id AS w FROM snowflake_status \gset
-- The new keys: in (placed_at, old key) order, each in its millisecond at
-- the next free sequence number, spilling into the next milliseconds.
CREATE TEMP TABLE new_keys AS
SELECT old_id, snowflake_make_id(snowflake_timestamp(slot >> 12 << 22), :dc, :w, (slot & 4095)::int) AS new_id
  FROM (SELECT old_id, rn + max(row_slot - rn) OVER (ORDER BY t, old_id ROWS UNBOUNDED PRECEDING) AS slot
          FROM (SELECT id AS old_id, placed_at AS t, snowflake_min_id(placed_at) >> 10 AS row_slot,
                       row_number() OVER (ORDER BY placed_at, id) AS rn
                  FROM orders) r) s;
UPDATE orders o SET id = k.new_id FROM new_keys k WHERE k.old_id = o.id;
UPDATE lines l SET order_id = k.new_id FROM new_keys k WHERE k.old_id = l.order_id;
ALTER TABLE lines ADD CONSTRAINT lines_order_id_fkey FOREIGN KEY (order_id) REFERENCES orders;
ALTER TABLE orders ALTER COLUMN id SET DEFAULT snowflake_nextval();
COMMIT;
EOS
}

# Which order got which id, and the lines with their orders: equal both ways.
FINGERPRINT="SELECT md5(string_agg(customer || '=' || id, ',' ORDER BY customer))
                    || ' ' || (SELECT count(*) FROM lines l JOIN orders o ON o.id = l.order_id)
             FROM orders"

echo "## Re-keying history from a time column: snowflake_convert_column against by hand"
echo
echo "PostgreSQL $(sf_psql "$DIR" -d postgres -Atc 'SHOW server_version'), $(nproc) CPUs, fsync off,"
echo "shared_buffers 512MB, max_wal_size 8GB, no parallel query, no JIT; one line per order."
echo
RESULTS=()
for N in $SIZES; do
    sf_psql "$DIR" -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS rk_src" -c "CREATE DATABASE rk_src" >/dev/null
    sf_psql "$DIR" -d rk_src >/dev/null <<EOS
CREATE EXTENSION snowflake;
CREATE TABLE orders (id serial PRIMARY KEY, placed_at timestamptz NOT NULL, customer text NOT NULL);
CREATE TABLE lines (id serial PRIMARY KEY, order_id integer NOT NULL REFERENCES orders, qty integer NOT NULL);
CREATE INDEX ON lines (order_id);
-- Five years before 2025, in another order than the keys; a few thousand
-- orders share a millisecond now and then.
INSERT INTO orders (placed_at, customer)
SELECT '2025-01-01'::timestamptz
       - ((hashint8(g) & 2147483647) / 2147483648.0) * interval '5 years', 'c' || g
FROM generate_series(1, $N) g;
INSERT INTO lines (order_id, qty) SELECT id, 1 + id % 5 FROM orders;
VACUUM (ANALYZE) orders, lines;
EOS
    size=$(sf_psql "$DIR" -d rk_src -Atc \
        "SELECT pg_size_pretty(pg_total_relation_size('orders') + pg_total_relation_size('lines'))")
    declare -A T FP
    for way in convert hand; do
        sf_psql "$DIR" -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS rk_$way" \
            -c "CREATE DATABASE rk_$way TEMPLATE rk_src" >/dev/null
        sf_psql "$DIR" -d postgres -c CHECKPOINT >/dev/null
        t0=$(now)
        if [ "$way" = convert ]; then
            sf_psql "$DIR" -d "rk_$way" -c \
                "SELECT count(*) FROM snowflake_convert_column('orders', 'id', time_column => 'placed_at')" \
                >/dev/null 2>"$DIR/convert-$N.log"
        else
            by_hand_sql | sf_psql "$DIR" -d "rk_$way" >/dev/null
        fi
        T[$way]=$(secs "$t0" "$(now)")
        FP[$way]=$(sf_psql "$DIR" -d "rk_$way" -Atc "$FINGERPRINT")
        sf_psql "$DIR" -d postgres -c "DROP DATABASE rk_$way" >/dev/null
    done
    if [ "${FP[convert]}" != "${FP[hand]}" ]; then
        echo "rekey_bench.sh: the two ways gave different ids for $N rows" >&2
        exit 1
    fi
    echo "### $N orders and $N lines ($size)"
    echo
    echo "snowflake_convert_column's NOTICEs:"
    echo
    sed 's/^/    /' "$DIR/convert-$N.log"
    echo
    RESULTS+=("| $N | $size | ${T[convert]} s | ${T[hand]} s | $(awk -v a="${T[convert]}" -v b="${T[hand]}" 'BEGIN { printf "%.2f", a / b }') |")
    sf_psql "$DIR" -d postgres -c "DROP DATABASE rk_src" >/dev/null
done
echo "| orders (and lines) | tables before | convert | by hand | convert / by hand |"
echo "|---|---|---|---|---|"
printf '%s\n' "${RESULTS[@]}"
echo
echo "Both ways gave every order the same id."
