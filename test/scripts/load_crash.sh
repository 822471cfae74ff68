#!/usr/bin/env bash
# Load and crash: nothing is ever duplicated, and a crash never sends ids back.
#
#   (i)  16 sessions, 8 in each of 2 databases of one server, take 250,000 ids
#        each (4,000,000): no duplicates, every session strictly increasing.
#   (ii) the same load again, with a kill -9 of the postmaster once ~40% of
#        the ids are out.  When the postmaster and all its children are gone
#        the server is restarted; the sessions reconnect and carry on.  Then:
#          - every id any client received (both runs, all sessions, and a
#            probe taken right after the restart) is unique;
#          - every session is strictly increasing across its reconnect;
#          - every id received after a reconnect (and the probe) is above
#            every id received before the kill, by any session.
#        sf_concurrency --out writes "session id" lines in received order and
#        "session RECONNECT" where the session reconnected, which splits each
#        session's ids into before and after the crash.
#
#   bash test/scripts/load_crash.sh [--quick] [WORKDIR]     (as root)
#
# --quick (for CI): 8 sessions (4 per database) x 50,000 ids per run.
# The server runs as postgres on port SF_LOAD_PORT (default 54430) with its
# socket and data under WORKDIR (default /var/tmp/h-load).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../lib/common.sh"

QUICK=0
DIR=/var/tmp/h-load
for arg in "$@"; do
    case $arg in
    --quick) QUICK=1 ;;
    -*) echo "usage: $0 [--quick] [WORKDIR]" >&2; exit 2 ;;
    *) DIR=$arg ;;
    esac
done
PORT=${SF_LOAD_PORT:-54430}
if [ $QUICK = 1 ]; then PER_DB=4 IDS=50000; else PER_DB=8 IDS=250000; fi
BATCH=${SF_LOAD_BATCH:-1000}
# Smaller round trips in the crash run, so that it lasts long enough (seconds)
# for the kill to land in the middle of it.
CRASH_BATCH=${SF_CRASH_BATCH:-5}
SESSIONS=$((2 * PER_DB))
TOTAL=$((SESSIONS * IDS))
KILL_AT=$((TOTAL * 2 / 5))

CLIENT="$HERE/../client/sf_concurrency"
if [ ! -x "$CLIENT" ] || [ "$HERE/../client/concurrency.cpp" -nt "$CLIENT" ]; then
    make -s -C "$HERE/../client" sf_concurrency
fi

LOAD_PID=
cleanup() {
    if [ -n "$LOAD_PID" ]; then kill "$LOAD_PID" 2>/dev/null || true; fi
    sf_server_stop "$DIR" 2>/dev/null || true
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

sf_server_init "$DIR" "$PORT" "shared_preload_libraries = 'snowflake'" \
    "snowflake.datacenter_id = 3" "snowflake.worker_id = 9" "max_connections = 60"
sf_server_start "$DIR"
for db in db1 db2; do
    sf_psql "$DIR" -d postgres -c "CREATE DATABASE $db"
    sf_psql "$DIR" -d "$db" -c "CREATE EXTENSION snowflake"
done

# The client runs as root: the socket directory belongs to postgres (0700).
CONNS=(--conn "host=$DIR port=$PORT user=postgres dbname=db1"
       --conn "host=$DIR port=$PORT user=postgres dbname=db2")

ids_issued() { sf_psql "$DIR" -d db1 -At -c "SELECT ids_issued FROM snowflake_status"; }
field() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"; }

# Compares non-negative integers given as decimal text exactly (awk's doubles
# cannot tell apart ids that differ in the last bits).
AWK_LT='function lt(a, b) { return length(a) < length(b) || (length(a) == length(b) && (a "") < (b "")) }'

# check_session_order FILE: every session's ids strictly increasing (RECONNECT
# lines are skipped, so this spans the crash).
check_session_order() {
    awk "$AWK_LT"'
         $2 != "RECONNECT" {
             if (($1 in last) && !lt(last[$1], $2)) { bad++; if (bad < 5) print "session " $1 ": " $2 " after " last[$1] > "/dev/stderr" }
             last[$1] = $2 }
         END { exit bad > 0 }' "$1" || fail "$1: a session's ids are not strictly increasing"
}

# count_duplicates FILE...: ids received more than once over all the files.
count_duplicates() {
    cat "$@" | awk '$2 != "RECONNECT" { print $2 }' | LC_ALL=C sort -S 25% | uniq -d | wc -l
}

echo "load_crash: $SESSIONS sessions over 2 databases x $IDS ids = $TOTAL ids per run (batch $BATCH)"

# --- (i) load --------------------------------------------------------------
OUT1=$DIR/load.out
line=$("$CLIENT" "${CONNS[@]}" --per-conn "$PER_DB" --ids "$IDS" --batch "$BATCH" --out "$OUT1") ||
    fail "load run: sf_concurrency failed: $line"
echo "load:  $line"
LOAD_RATE=$(field ids_per_s "$line")
[ "$(field ids "$line")" = "$TOTAL" ] || fail "load run: expected $TOTAL ids"
[ "$(field duplicates "$line")" = 0 ] || fail "load run: duplicates"
check_session_order "$OUT1"
DUP1=$(count_duplicates "$OUT1")
[ "$DUP1" = 0 ] || fail "load run: $DUP1 duplicate ids in $OUT1"

# --- (ii) load with kill -9 of the postmaster --------------------------------
OUT2=$DIR/crash.out
BASE=$(ids_issued)
"$CLIENT" "${CONNS[@]}" --per-conn "$PER_DB" --ids "$IDS" --batch "$CRASH_BATCH" --out "$OUT2" \
    --reconnect --reconnect-timeout 120 >"$DIR/crash.client" 2>"$DIR/crash.client.err" &
LOAD_PID=$!

deadline=$((SECONDS + 300))
while :; do
    n=$(ids_issued 2>/dev/null || echo 0)
    [ $((n - BASE)) -ge $KILL_AT ] && break
    kill -0 "$LOAD_PID" 2>/dev/null || fail "crash run: the load ended before the kill"
    [ $SECONDS -lt $deadline ] || fail "crash run: the load did not reach $KILL_AT ids"
    sleep 0.02
done

PM=$(head -n 1 "$DIR/data/postmaster.pid")
CHILDREN=$(pgrep -P "$PM" | tr '\n' ' ')
kill -9 "$PM"
T_KILL=$(date +%s.%N)
ISSUED_BEFORE_KILL=$((n - BASE))

# gone PID: the process no longer exists (a zombie still holds postmaster.pid).
gone() { [ ! -e "/proc/$1" ]; }
deadline=$((SECONDS + 60))
for p in $PM $CHILDREN; do
    until gone "$p"; do
        [ $SECONDS -lt $deadline ] || fail "process $p did not exit after the postmaster was killed"
        sleep 0.05
    done
done
T_GONE=$(date +%s.%N)
sf_server_start "$DIR" 2> >(grep -v 'another server might be running' >&2)
T_UP=$(date +%s.%N)
PROBE=$(sf_psql "$DIR" -d db1 -At -c "SELECT snowflake_nextval()")

wait "$LOAD_PID" && rc=0 || rc=$?
LOAD_PID=
line=$(cat "$DIR/crash.client")
echo "crash: $line"
[ $rc = 0 ] || { cat "$DIR/crash.client.err" >&2; fail "crash run: sf_concurrency exited $rc"; }
CRASH_RATE=$(field ids_per_s "$line")
[ "$(field ids "$line")" = "$TOTAL" ] || fail "crash run: expected $TOTAL ids"
RECONNECTS=$(field reconnects "$line")
check_session_order "$OUT2"
DUP_ALL=$(count_duplicates "$OUT1" "$OUT2" <(echo "probe $PROBE"))
[ "$DUP_ALL" = 0 ] || fail "$DUP_ALL ids were received twice (both runs and the probe)"

# Before the kill: ids a session received before its first RECONNECT line.
read -r PRE POST PRE_MAX POST_MIN SESSIONS_RECONNECTED < <(awk "$AWK_LT"'
    $2 == "RECONNECT" { after[$1] = 1; next }
    after[$1] { post++; if (post_min == "" || lt($2, post_min)) post_min = $2; next }
    { pre++; if (pre_max == "" || lt(pre_max, $2)) pre_max = $2 }
    END { n = 0; for (s in after) n++
          printf "%d %d %s %s %d\n", pre, post, pre_max == "" ? -1 : pre_max,
                 post_min == "" ? -1 : post_min, n }' "$OUT2")
[ "$PRE" -gt 0 ] && [ "$POST" -gt 0 ] || fail "crash run: expected ids before ($PRE) and after ($POST) the crash"
[ "$SESSIONS_RECONNECTED" -gt 0 ] || fail "crash run: no session reconnected"
# Compare as numbers of equal width: awk's doubles cannot tell ids 1 apart.
gt() { [ ${#1} -gt ${#2} ] || { [ ${#1} -eq ${#2} ] && [[ $1 > $2 ]]; }; }
gt "$POST_MIN" "$PRE_MAX" || fail "an id after the crash ($POST_MIN) is not above every id before it ($PRE_MAX)"
gt "$PROBE" "$PRE_MAX" || fail "the probe after restart ($PROBE) is not above every id before the crash ($PRE_MAX)"

DOWN=$(awk -v a="$T_KILL" -v b="$T_UP" 'BEGIN { printf "%.2f", b - a }')
REAP=$(awk -v a="$T_KILL" -v b="$T_GONE" 'BEGIN { printf "%.2f", b - a }')
REPORT=$DIR/report.txt
{
    echo "load_crash$([ $QUICK = 1 ] && echo " --quick" || true) on $(date -u +%FT%TZ): $SESSIONS sessions over 2 databases, $IDS ids each, batch $BATCH"
    echo "load:  $TOTAL ids, 0 duplicates, every session strictly increasing, $LOAD_RATE ids/s"
    echo "crash: $TOTAL ids (batch $CRASH_BATCH), $RECONNECTS reconnects in $SESSIONS_RECONNECTED sessions, $CRASH_RATE ids/s including the outage"
    echo "       kill -9 of the postmaster after ~$ISSUED_BEFORE_KILL ids; processes gone after ${REAP}s, server up again ${DOWN}s after the kill"
    echo "       received before the kill: $PRE ids (max $PRE_MAX); after: $POST ids (min $POST_MIN); probe $PROBE"
    echo "       duplicates over both runs and the probe: $DUP_ALL; every session strictly increasing across its reconnect"
} | tee "$REPORT"
echo "load_crash: OK"
