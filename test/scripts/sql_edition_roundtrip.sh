#!/usr/bin/env bash
# The SQL edition, one id per round trip, on a durable server: a bare
# `SELECT snowflake_nextval()` per transaction against `SELECT nextval('s1')`
# (CACHE 1), with fsync = on and synchronous_commit = on, as a managed
# service runs (test/scripts/bench.sh runs it after its section (i)).
#
#   bash test/scripts/sql_edition_roundtrip.sh [--quick] [WORKDIR]
#                                    (as root; the server runs as postgres)
#
# pgbench, one client, SECONDS seconds a run (10; --quick 2), the two
# alternating, REPS pairs (3; --quick 1): transactions per second of each,
# their ratio per pair, and the transaction ids assigned and WAL syncs per
# 1,000 calls (pg_stat_wal, or pg_stat_io from PostgreSQL 18 on; the difference of txid_current_snapshot's xmax).
# Port 54414 (SF_RT_BENCH_PORT), directory /var/tmp/h-rt-bench unless WORKDIR
# is given.  No timing assertions: the exit status is non-zero only on an
# error.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../lib/common.sh"

SECONDS_RUN=10
REPS=3
DIR=/var/tmp/h-rt-bench
while [ $# -gt 0 ]; do
    case $1 in
        --quick) SECONDS_RUN=2; REPS=1 ;;
        *) DIR=$1 ;;
    esac
    shift
done
PORT=${SF_RT_BENCH_PORT:-54414}

sf_server_init "$DIR" "$PORT" "fsync = on" "synchronous_commit = on" "jit = off" \
    "autovacuum = off"
sf_server_start "$DIR"
trap 'sf_server_stop "$DIR"' EXIT
make -s -C "$HERE/../.." sql-edition DISTDIR="$DIR/dist" >/dev/null
sf_psql "$DIR" -d postgres -c 'CREATE SCHEMA sqled' -c 'SET search_path = sqled' \
    -f "$DIR/dist/snowflake_sql.sql" -c 'SELECT sqled.snowflake_configure(worker_id => 2)' \
    -c 'CREATE SEQUENCE public.s1 CACHE 1' >/dev/null
echo 'SELECT sqled.snowflake_nextval();' >"$DIR/sql.pgb"
echo "SELECT nextval('public.s1');" >"$DIR/s1.pgb"
chown postgres: "$DIR"/*.pgb

q() { sf_psql "$DIR" -d postgres -At -c "$1"; }
# WAL fsyncs so far: pg_stat_wal.wal_sync up to 17, pg_stat_io's row for WAL
# writes from 18 on (pg_stat_wal lost the column).
if [ "$(q 'SHOW server_version_num')" -ge 180000 ]; then
    WAL_SYNCS="SELECT sum(fsyncs)::bigint FROM pg_stat_io WHERE object = 'wal'"
else
    WAL_SYNCS='SELECT wal_sync FROM pg_stat_wal'
fi
# run NAME: "tps xids_per_1000 wal_syncs_per_1000"
run() {
    local x0 w0 out n tps x1 w1
    x0=$(q 'SELECT txid_snapshot_xmax(txid_current_snapshot())')
    w0=$(q "$WAL_SYNCS")
    out=$(as_postgres "$(sf_bindir)/pgbench" -h "$DIR" -p "$PORT" -U postgres -n -c 1 \
        -T "$SECONDS_RUN" -f "$DIR/$1.pgb" postgres 2>&1)
    x1=$(q 'SELECT txid_snapshot_xmax(txid_current_snapshot())')
    w1=$(q "$WAL_SYNCS")
    n=$(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
    tps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\) (without.*/\1/p')
    # Each q above takes no xid; the snapshot's xmax moves by the xids assigned.
    awk -v t="$tps" -v n="$n" -v x=$((x1 - x0)) -v w=$((w1 - w0)) \
        'BEGIN { printf "%.0f %.1f %.1f\n", t, x * 1000 / n, w * 1000 / n }'
}

echo "## (i') The SQL edition, one id per round trip, fsync = $(q 'SHOW fsync'), synchronous_commit = $(q 'SHOW synchronous_commit')"
echo
echo "pgbench -c 1 -T $SECONDS_RUN, one statement per transaction, alternating; $REPS pairs"
echo
echo "| pair | \`SELECT snowflake_nextval()\` tps | xids / 1,000 | WAL syncs / 1,000 | \`SELECT nextval('s1')\` CACHE 1 tps | xids / 1,000 | WAL syncs / 1,000 | ratio |"
echo "|---|---|---|---|---|---|---|---|"
for rep in $(seq 1 "$REPS"); do
    if [ $((rep % 2)) = 1 ]; then a=$(run sql); b=$(run s1); else b=$(run s1); a=$(run sql); fi
    read -r at ax aw <<<"$a"
    read -r bt bx bw <<<"$b"
    echo "| $rep | $at | $ax | $aw | $bt | $bx | $bw | $(awk -v a="$at" -v b="$bt" 'BEGIN { printf "%.3f", a / b }') |"
done
echo
