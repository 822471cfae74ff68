#!/usr/bin/env bash
# Planning time and relation locks of a time window on a partitioned table:
# tables of 100 and 1,000 hourly partitions (snowflake_create_partitions),
# 10 rows an hour, and a one-hour window asked in the natural form
# (snowflake_timestamp(id) >= a AND < b) and as literal id bounds (id >= lo
# AND id <= hi); then the same with times that are not constants when the
# query is planned, natural and as hand-written bound calls (id >=
# snowflake_min_id_since(a) ...), which prune when the executor starts.  For each: the median planning time of 25 EXPLAINs (after 5
# to warm the session's caches), and the relation locks its transaction
# holds after running the query (pg_locks).  No timing assertions: the exit
# status is non-zero only on an error, or when the two forms return
# different rows.
#
#   bash test/scripts/pruning_bench.sh [WORKDIR]   (as root; the server runs as postgres)
#
# Port 54415 (SF_PRUNING_BENCH_PORT), directory /var/tmp/h-pruning-bench
# unless WORKDIR is given.  About a minute on 2 cores.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../lib/common.sh"

DIR=${1:-/var/tmp/h-pruning-bench}
PORT=${SF_PRUNING_BENCH_PORT:-54415}
SRV="$DIR/server"
trap 'sf_server_stop "$SRV" || true' EXIT
mkdir -p "$DIR"
chown postgres: "$DIR"
sf_server_init "$SRV" "$PORT" "shared_preload_libraries = 'snowflake'" "snowflake.worker_id = 1" \
    "jit = off" "autovacuum = off" "max_locks_per_transaction = 256"
sf_server_start "$SRV"
sf_psql "$SRV" -d postgres -c 'CREATE EXTENSION snowflake' >/dev/null

START='2026-01-01 00:00:00+00'
A="'2026-01-03 02:00:00+00'"
B="'2026-01-03 03:00:00+00'"
# The same times as values that are not constants when planning (as
# now() - interval '1 day' is): both forms prune when the executor starts.
AS="timestamptz $A + interval '0 s'"
BS="timestamptz $B + interval '0 s'"

echo "PostgreSQL: $(sf_psql "$SRV" -d postgres -Atc 'SHOW server_version')"
printf '%-12s %-15s %14s %6s %6s\n' partitions form 'planning (ms)' locks rows
for N in 100 1000; do
    sf_psql "$SRV" -d postgres >/dev/null <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS ev;
CREATE TABLE ev (id bigint NOT NULL, PRIMARY KEY (id)) PARTITION BY RANGE (id);
SELECT count(*) FROM snowflake_create_partitions('ev', '$START', timestamptz '$START' + $N * interval '1 hour', '1 hour');
INSERT INTO ev SELECT snowflake_min_id(timestamptz '$START' + g * interval '6 min') FROM generate_series(0, $N * 10 - 1) g;
VACUUM ANALYZE ev;
SQL
    BOUNDS=$(sf_psql "$SRV" -d postgres -Atc "SELECT snowflake_min_id_since($A) || ' ' || snowflake_max_id_before($B)")
    read -r LO HI <<<"$BOUNDS"
    declare -A Q=(
        [natural]="SELECT count(*) FROM ev WHERE snowflake_timestamp(id) >= $A AND snowflake_timestamp(id) < $B"
        [literal]="SELECT count(*) FROM ev WHERE id >= $LO AND id <= $HI"
        [natural-stable]="SELECT count(*) FROM ev WHERE snowflake_timestamp(id) >= $AS AND snowflake_timestamp(id) < $BS"
        [bounds-stable]="SELECT count(*) FROM ev WHERE id >= snowflake_min_id_since($AS) AND id <= snowflake_max_id_before($BS)")
    declare -A ROWS=()
    for form in literal natural bounds-stable natural-stable; do
        q=${Q[$form]}
        plans=$(for i in $(seq 30); do echo "EXPLAIN (SUMMARY) $q;"; done |
            sf_psql "$SRV" -d postgres -At | sed -n 's/^Planning Time: \([0-9.]*\) ms$/\1/p' |
            tail -n 25 | sort -n | sed -n 13p)
        out=$(sf_psql "$SRV" -d postgres -At <<SQL
BEGIN;
$q;
SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'relation';
COMMIT;
SQL
)
        ROWS[$form]=$(echo "$out" | sed -n 1p)
        printf '%-12s %-15s %14s %6s %6s\n' "$N" "$form" "$plans" "$(echo "$out" | sed -n 2p)" "${ROWS[$form]}"
    done
    for form in natural bounds-stable natural-stable; do
        [ "${ROWS[$form]}" = "${ROWS[literal]}" ] || { echo "$form: different rows" >&2; exit 1; }
    done
done
