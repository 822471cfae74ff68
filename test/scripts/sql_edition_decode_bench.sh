#!/usr/bin/env bash
# The SQL edition's snowflake_decode and snowflake_parse beside the C
# extension's, on one server: 100,000 ids and their text forms in a table,
# each query over all of them, the two editions alternating, REPS times (5;
# --quick 1); the medians (ms) and their ratio, SQL edition / C extension.
#
#   bash test/scripts/sql_edition_decode_bench.sh [--quick] [WORKDIR]
#                                    (as root; the server runs as postgres)
#
# The C extension in database c (its functions need no preloading), the
# SQL edition (dist/snowflake_sql.sql) in database sqled.  Port 54415
# (SF_DECODE_BENCH_PORT), directory /var/tmp/h-decode-bench unless WORKDIR is
# given.  No timing assertions.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../lib/common.sh"

REPS=5
DIR=/var/tmp/h-decode-bench
while [ $# -gt 0 ]; do
    case $1 in
        --quick) REPS=1 ;;
        *) DIR=$1 ;;
    esac
    shift
done
PORT=${SF_DECODE_BENCH_PORT:-54415}

sf_server_init "$DIR" "$PORT" "jit = off" "max_parallel_workers_per_gather = 0"
sf_server_start "$DIR"
trap 'sf_server_stop "$DIR"' EXIT
make -s -C "$HERE/../.." sql-edition DISTDIR="$DIR/dist" >/dev/null
table="CREATE TABLE t AS SELECT i * 1234567891011 AS id,
    snowflake_encode(i * 1234567891011) AS b62,
    snowflake_encode(i * 1234567891011, 'base32') AS b32,
    snowflake_encode(i * 1234567891011, 'hex') AS hx
  FROM generate_series(1, 100000) i"
sf_psql "$DIR" -d postgres -c 'CREATE DATABASE c' -c 'CREATE DATABASE sqled' >/dev/null
sf_psql "$DIR" -d c -c 'CREATE EXTENSION snowflake' -c "$table" -c 'VACUUM ANALYZE t' >/dev/null
sf_psql "$DIR" -d sqled -f "$DIR/dist/snowflake_sql.sql" \
    -c 'SELECT snowflake_configure(worker_id => 2)' -c "$table" -c 'VACUUM ANALYZE t' >/dev/null

# ms DB QUERY: the query's time in psql, in ms.
ms() {
    sf_psql "$DIR" -d "$1" -X -c '\timing on' -c "$2" |
        sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# row LABEL C_QUERY SQL_QUERY: the query on the C extension and the other on
# the SQL edition, alternating REPS times; a table row of their medians and
# their ratio, SQL edition / C extension.
row() {
    local c=() s=() cm sm
    for _ in $(seq 1 "$REPS"); do
        c+=("$(ms c "$2")")
        s+=("$(ms sqled "$3")")
    done
    cm=$(printf '%s\n' "${c[@]}" | median)
    sm=$(printf '%s\n' "${s[@]}" | median)
    echo "| $1 | $cm | $sm | $(awk -v a="$sm" -v b="$cm" 'BEGIN { printf "%.1f", a / b }') |"
}

echo "## The SQL edition's decode and parse beside the C extension's, 100,000 ids, median of $REPS (ms)"
echo
echo "| query | C extension | SQL edition | ratio |"
echo "|---|---|---|---|"
for q in 'SELECT count(snowflake_decode(b62)) FROM t' \
         "SELECT count(snowflake_decode(b32, 'base32')) FROM t" \
         "SELECT count(snowflake_decode(hx, 'hex')) FROM t" \
         'SELECT count((snowflake_parse(id)).worker_id) FROM t' \
         'SELECT count(p.ts) FROM t, snowflake_parse(id) p' \
         'SELECT count(id) FROM t'; do
    row "\`$q\`" "$q" "$q"
done
echo

# codes COLUMN WIDTH: the sum of the codes of the text's first WIDTH
# characters, each read with ascii(substr(...)): the least that SQL, reading
# one character at a time, does for a text (no table, no check, no arithmetic
# of the format).
codes() {
    local e="0" k
    for k in $(seq 1 "$2"); do e="$e + ascii(substr($1, $k, 1))"; done
    echo "SELECT sum($e) FROM t"
}
echo "The least a per-character reader in SQL does: each character's code read with"
echo "\`ascii(substr(txt, k, 1))\` and summed, beside the C extension's whole decode (ms):"
echo
echo "| text | C extension, \`snowflake_decode\` | SQL, the characters' codes alone | ratio |"
echo "|---|---|---|---|"
for f in "b62 base62 11" "b32 base32 13"; do
    set -- $f
    row "$2 ($3 characters)" "SELECT count(snowflake_decode($1, '$2')) FROM t" "$(codes "$1" "$3")"
done
echo
