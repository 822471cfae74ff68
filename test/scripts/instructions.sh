#!/usr/bin/env bash
# Instructions per snowflake_nextval() call, counted by callgrind: a figure a
# loaded or shared machine does not disturb (the benchmark's timings are).
# Starts a throwaway server of the installed build under
# `valgrind --tool=callgrind --toggle-collect=snowflake_nextval`, takes N ids
# in one backend, and divides the instructions counted inside the function
# (and what it calls) by the calls.
#
# Instructions do not see what a cycle costs (a cache line another process
# wrote, a serialising instruction, a mispredicted branch), so the same
# server then runs without valgrind and `perf stat` counts the cycles and
# instructions of one backend over PERF_N ids and over the executor's floor
# (count(1) over the same series): cycles per id is the difference over
# PERF_N.  Where the CPU's counters cannot be read (no perf, or a virtual
# machine without a virtual PMU: `perf stat` says "<not supported>") the
# script says so and why, and the callgrind figure stands alone.
#
#   bash test/scripts/instructions.sh [WORKDIR]      (as root; needs valgrind; perf optional)
#   N=20000 (ids, callgrind), PERF_N=2000000 (ids, perf stat), SF_PORT=55990
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

# Cycles per id: perf stat attached to one backend, around each query.
cycles_unavailable() {
    command -v perf >/dev/null || { echo "no perf command (Debian: linux-perf)"; return 0; }
    local out
    out=$(perf stat -x, -e cycles,instructions true 2>&1 >/dev/null) ||
        { echo "perf stat fails: $(echo "$out" | tail -n 1)"; return 0; }
    if echo "$out" | grep -q '^<not supported>,,cycles\|<not counted>,,cycles'; then
        local why="the kernel offers no hardware cycle counter"
        dmesg 2>/dev/null | grep -q 'PMU not available' &&
            why="$why (\"$(dmesg | grep -m 1 -o 'PMU not available[^,]*')\": a virtual machine without a virtual PMU)"
        echo "$why"
        return 0
    fi
    return 1
}
if why=$(cycles_unavailable); then
    echo "cycles per id: not measured: $why"
else
    PERF_N=${PERF_N:-2000000}
    chown postgres "$DIR/server.log"  # written by valgrind's run above
    sf_server_start "$DIR"
    trap 'sf_server_stop "$DIR" || true' EXIT
    coproc SESSION { sf_psql "$DIR" -d postgres -At; }
    echo "SELECT pg_backend_pid();" >&"${SESSION[1]}"
    read -r BPID <&"${SESSION[0]}"
    # perf_count WHAT SQL: runs SQL in the session under perf stat; prints
    # "cycles instructions".
    perf_count() {
        perf stat -x, -e cycles,instructions -p "$BPID" -o "$DIR/perf-$1.csv" &
        local pp=$! line
        sleep 1  # perf attaches
        echo "$2" >&"${SESSION[1]}"
        read -r line <&"${SESSION[0]}"
        kill -INT "$pp"
        wait "$pp" || true
        awk -F, '$3 == "cycles" {c = $1} $3 == "instructions" {i = $1} END {print c, i}' "$DIR/perf-$1.csv"
    }
    echo "SELECT count(snowflake_nextval()) FROM generate_series(1, 10000);" >&"${SESSION[1]}"
    read -r _ <&"${SESSION[0]}"
    read -r FC FI < <(perf_count floor "SELECT count(1) FROM generate_series(1, $PERF_N);")
    read -r SC SI < <(perf_count ids "SELECT count(snowflake_nextval()) FROM generate_series(1, $PERF_N);")
    echo '\q' >&"${SESSION[1]}"
    wait "$SESSION_PID" 2>/dev/null || true
    sf_server_stop "$DIR"
    trap - EXIT
    awk -v n="$PERF_N" -v fc="$FC" -v fi="$FI" -v sc="$SC" -v si="$SI" 'BEGIN {
        printf "cycles per id (perf stat, one backend, %d ids less count(1) over the same series): %.0f cycles, %.0f instructions, %.2f instructions per cycle\n",
            n, (sc - fc) / n, (si - fi) / n, (sc > fc) ? (si - fi) / (sc - fc) : 0 }'
fi
echo "build: $("$(sf_pg_config)" --pkglibdir)/snowflake.so, sha256 $(sha256sum "$("$(sf_pg_config)" --pkglibdir)/snowflake.so" | cut -c1-16)"
