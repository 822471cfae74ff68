#!/usr/bin/env bash
# The planner differential test: queries that call no snowflake function get
# the same plans and the same rows on a server with snowflake preloaded and
# created as on one without the library.  The corpus (planner_diff.py, a
# few hundred queries: comparisons, BETWEEN, IN, joins, subqueries, views,
# partitions, literals, casts, function calls, generic and custom plans of
# prepared statements, over bigint, integer and timestamptz columns with
# negative values) runs on both; the transcripts, each query's EXPLAIN
# (COSTS OFF) and its rows, must be identical.  The servers are otherwise
# configured alike.  Then, in each round, the queries once more on both,
# while another session holds pg_extension and pg_depend locked: still
# identical, and none waits.  On PostgreSQL 19 a second round preloads
# pg_plan_advice and pg_stash_advice on both servers, snowflake between them.
#
#   bash test/scripts/planner_diff.sh [WORKDIR]     (as root; the servers run as postgres)
#
# Ports 54431 and 54432 (SF_PLANNER_DIFF_PORT, and the next one).  On a
# difference it prints the first lines of the diff and exits non-zero.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../lib/common.sh"

DIR=${1:-/var/tmp/snowflake-planner-diff}
PORT=${SF_PLANNER_DIFF_PORT:-54431}
WITH="$DIR/with-snowflake"
WITHOUT="$DIR/without"

cleanup() {
    sf_server_stop "$WITH" || true
    sf_server_stop "$WITHOUT" || true
}
trap cleanup EXIT

mkdir -p "$DIR"
chown postgres: "$DIR"
python3 "$HERE/planner_diff.py" >"$DIR/corpus.sql"
chown postgres: "$DIR/corpus.sql"
queries=$(grep -c '^\\echo ==== [0-9]*$' "$DIR/corpus.sql")
{ echo "SET statement_timeout = '10s';"; python3 "$HERE/planner_diff.py" --queries-only; } >"$DIR/queries.sql"
chown postgres: "$DIR/queries.sql"

# lock_family NAME: the queries again on both running servers, each in a new
# session, while another session holds pg_extension and pg_depend in ACCESS
# EXCLUSIVE mode in an open transaction (as a long maintenance command on them
# would), with a 10 s statement_timeout.  The planner hooks read neither
# catalog, so every query plans and runs at once, with the same transcript.
lock_family() {
    local name=$1 side holder
    for side in "$WITH" "$WITHOUT"; do
        # The holder prints its backend's pid, then "locked" once it holds both.
        printf '%s\n' 'SELECT pg_backend_pid();' 'BEGIN;' \
            'LOCK TABLE pg_catalog.pg_extension, pg_catalog.pg_depend IN ACCESS EXCLUSIVE MODE;' \
            '\echo locked' 'SELECT pg_sleep(180);' |
            sf_psql "$side" -d postgres -At >"$side.holder" 2>&1 &
        holder=$!
        for _ in $(seq 150); do grep -qx locked "$side.holder" && break; sleep 0.2; done
        grep -qx locked "$side.holder" || { echo "planner_diff ($name): could not lock the catalogs" >&2; exit 1; }
        sf_psql "$side" -d postgres -a -v ON_ERROR_STOP=0 -f "$DIR/queries.sql" >"$side.locked.out" 2>&1 || true
        as_postgres kill -TERM "$(head -n 1 "$side.holder")" || true
        wait "$holder" || true
    done
    if ! diff -u "$WITHOUT.locked.out" "$WITH.locked.out" >"$DIR/diff.locked.txt"; then
        echo "planner_diff ($name): with pg_extension and pg_depend locked, the plans or rows differ with snowflake (- without, + with):" >&2
        head -n 60 "$DIR/diff.locked.txt" >&2
        exit 1
    fi
    if grep -q 'statement timeout' "$WITH.locked.out"; then
        echo "planner_diff ($name): with pg_extension and pg_depend locked, a query waited:" >&2
        grep -m 5 -B 3 'statement timeout' "$WITH.locked.out" >&2
        exit 1
    fi
    echo "planner_diff ($name): the same $queries queries identical again while pg_extension and pg_depend are locked"
}

# round NAME LIBS_WITH LIBS_WITHOUT: the corpus on a server preloading
# LIBS_WITH (snowflake among them) and on one preloading LIBS_WITHOUT.
round() {
    local name=$1 with_libs=$2 without_libs=$3
    local common=("jit = off" "autovacuum = off" "max_parallel_workers_per_gather = 2")
    sf_server_init "$WITH" "$PORT" "${common[@]}" "shared_preload_libraries = '$with_libs'" \
        "snowflake.worker_id = 3"
    sf_server_init "$WITHOUT" "$((PORT + 1))" "${common[@]}" "shared_preload_libraries = '$without_libs'"
    sf_server_start "$WITH"
    sf_server_start "$WITHOUT"
    sf_psql "$WITH" -d postgres -c 'CREATE EXTENSION snowflake'
    for side in "$WITH" "$WITHOUT"; do
        # Each statement echoed before its output; errors are part of the
        # transcript: both sides must raise the same.
        sf_psql "$side" -d postgres -a -v ON_ERROR_STOP=0 -f "$DIR/corpus.sql" >"$side.out" 2>&1
    done
    lock_family "$name"
    cleanup
    # The extension's objects are not in the transcript: nothing in the corpus
    # names them.  The servers' own messages name no directory either.
    if ! diff -u "$WITHOUT.out" "$WITH.out" >"$DIR/diff.txt"; then
        echo "planner_diff ($name): $queries queries; the plans or rows differ with snowflake (- without, + with):" >&2
        head -n 60 "$DIR/diff.txt" >&2
        exit 1
    fi
    if ! grep -qx "==== $queries queries" "$WITH.out"; then
        echo "planner_diff ($name): the corpus did not run to its end:" >&2
        tail -n 20 "$WITH.out" >&2
        exit 1
    fi
    local errors
    errors=$(grep -c '^psql:.*ERROR' "$WITH.out" || true)
    echo "planner_diff ($name): $queries queries, plans and rows identical with and without snowflake ($errors raise the same error on both)"
}

round "snowflake alone" snowflake ""
# PostgreSQL 19's plan advice modules hook the planner too: a second round
# with them preloaded on both servers, snowflake between them.
major=$("$(sf_pg_config)" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
if [ "$major" -ge 19 ]; then
    round "beside pg_plan_advice and pg_stash_advice" "pg_plan_advice,snowflake,pg_stash_advice" \
        "pg_plan_advice,pg_stash_advice"
fi
