#!/usr/bin/env bash
# Instructions per snowflake_nextval() call, counted by callgrind: a figure a
# loaded or shared machine does not disturb (the benchmark's timings are).
# Starts a throwaway server of the installed build under
# `valgrind --tool=callgrind --toggle-collect=snowflake_nextval`, takes N ids
# in one backend, and divides the instructions counted inside the function
# (and what it calls) by the calls.
#
#   bash test/scripts/instructions.sh [WORKDIR]      (as root; needs valgrind)
#   N=20000 (ids), SF_PORT=55990
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../lib/common.sh"

DIR=${1:-/var/tmp/snowflake-instructions}
PORT=${SF_PORT:-55990}
N=${N:-20000}
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind" >&2; exit 2; }

sf_server_init "$DIR" "$PORT" "shared_preload_libraries = 'snowflake'" "snowflake.worker_id = 1" \
    "jit = off" "autovacuum = off" "max_connections = 20"
install -d -o postgres "$DIR/cg"
as_postgres valgrind --tool=callgrind --toggle-collect=snowflake_nextval \
    --callgrind-out-file="$DIR/cg/%p.out" "$(sf_bindir)/postgres" -D "$DIR/data" >"$DIR/server.log" 2>&1 &
trap 'as_postgres "$(sf_bindir)/pg_ctl" -D "$DIR/data" -m fast -w -t 300 stop >/dev/null 2>&1 || true' EXIT
for _ in $(seq 1 300); do sf_psql "$DIR" -d postgres -c 'SELECT 1' >/dev/null 2>&1 && break; sleep 1; done
sf_psql "$DIR" -d postgres -c 'CREATE EXTENSION IF NOT EXISTS snowflake'
# One backend: 10 ids first (the first waits for a reservation), then N.
PID=$(sf_psql "$DIR" -d postgres -At <<SQL | tail -n 1
SELECT count(snowflake_nextval()) FROM generate_series(1, 10);
SELECT count(snowflake_nextval()) FROM generate_series(1, $N);
SELECT pg_backend_pid();
SQL
)
as_postgres "$(sf_bindir)/pg_ctl" -D "$DIR/data" -m fast -w -t 300 stop >/dev/null
trap - EXIT
IR=$(awk '/^(summary|totals):/ {print $2; exit}' "$DIR/cg/$PID.out")
CALLS=$((N + 10))
echo "snowflake_nextval(): $IR instructions over $CALLS calls in backend $PID: $((IR / CALLS)) per call"
echo "build: $("$(sf_pg_config)" --pkglibdir)/snowflake.so, sha256 $(sha256sum "$("$(sf_pg_config)" --pkglibdir)/snowflake.so" | cut -c1-16)"
