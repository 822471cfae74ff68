#!/usr/bin/env bash
# Release against release: the id benchmark of earlier builds and of this
# working tree, alternately, in one run.
#
#   bash test/scripts/bench_releases.sh [--runs R] [--n N] [--port P] [--quick]
#        [--no-tree] [--list] [/WORKDIR] REV [REV...]  (as root; servers run as postgres)
#
# REV: a commit, tag or branch of this repository; `release:X.Y`, the last
# commit (on the first-parent line of HEAD) whose snowflake.control has
# default_version X.Y; or `previous`, the last commit of the version before
# the current one (as deb.sh picks the release to upgrade from).  Before a
# release: `bash test/scripts/bench_releases.sh previous`.  A clone with its
# history is needed.  --list prints the commits the REVs name, and stops.  Each REV is exported with `git archive` into
# WORKDIR/bK/src, then the working tree (tracked and untracked files, as the
# suites copy it; --no-tree leaves it out); each is built and installed into
# a private copy of the PostgreSQL installation PG_CONFIG names (its layout
# kept below WORKDIR/bK/pg, without snowflake's files: Debian's PostgreSQL
# finds its files relative to its own binaries), so nothing outside WORKDIR
# is touched.  One server per build (ports P, P+1, ...; P defaults to 54420),
# each as bench.sh's server B: sequence_bits 16, worker_bits 3,
# datacenter_bits 3, so that the cap (65,536 ids per millisecond) does not
# bind; fsync, jit and autovacuum off.
#
# Then R rounds (5), each running every build once, the builds' order
# rotating from round to round.  A build's turn is one fresh session that
# takes 10,000 ids to warm up, then times, each over generate_series(1, N)
# (N = 2,000,000):
#   SELECT count(1)                    the executor's floor
#   SELECT count(snowflake_nextval())
#   SELECT count(nextval('s1'))        a sequence with CACHE 1
#   SELECT count(nextval('s100'))      a sequence with CACHE 100
# each by the backend's own CPU time (the first field of
# /proc/<backend>/schedstat, read by the backend) and by the wall clock
# (clock_timestamp(), also in the backend).  Net ns per id is a query's time
# less the floor's of the same turn, over N.  Printed: per build the median
# over the rounds of each net figure ([min..max] for snowflake's), the ratio
# of snowflake's median to CACHE 100's (the target is <= 0.5), and of each
# build's snowflake median to the first build's.  CPU time is the figure a shared machine disturbs
# least (time spent waiting for a CPU is not in it); the wall clock is what a
# quiet machine shows.  The load averages before and after are printed: on a
# loaded machine compare builds only within one run.
#
# --quick: N = 20,000 and 2 rounds (the test of the script itself: seconds
# besides the builds).  No timing assertions: non-zero exit only on an error.
# WORKDIR defaults to /var/tmp/snowflake-releases; it is replaced.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/../lib/common.sh"

RUNS=5
N=2000000
PORT=${SF_RELEASES_PORT:-54420}
DIR=/var/tmp/snowflake-releases
TREE=1
LIST=0
REVS=()
ARGS="$*"
while [ $# -gt 0 ]; do
    case $1 in
        --runs) RUNS=$2; shift ;;
        --n) N=$2; shift ;;
        --port) PORT=$2; shift ;;
        --quick) RUNS=2; N=20000 ;;
        --no-tree) TREE=0 ;;
        --list) LIST=1 ;;
        -h|--help) sed -n '2,45p' "${BASH_SOURCE[0]}"; exit 0 ;;
        -*) echo "bench_releases.sh: unknown option $1" >&2; exit 2 ;;
        /*) DIR=$1 ;;   # WORKDIR: an absolute path
        *) REVS+=("$1") ;;
    esac
    shift
done
[ ${#REVS[@]} -gt 0 ] || [ "$TREE" = 1 ] || { echo "bench_releases.sh: nothing to build" >&2; exit 2; }

control_version() { sed -n "s/^default_version = '\([^']*\)'.*/\1/p"; }

# The last commit whose control file says version $1 (see REV above).
release_commit() {
    local newer="" c
    for c in $(git -C "$ROOT" log --first-parent --format=%H HEAD -- snowflake.control); do
        if [ "$(git -C "$ROOT" show "$c:snowflake.control" | control_version)" = "$1" ]; then
            if [ -z "$newer" ]; then git -C "$ROOT" rev-parse HEAD; else git -C "$ROOT" rev-parse "$newer^"; fi
            return
        fi
        newer=$c
    done
    echo "bench_releases.sh: no commit of $ROOT has default_version '$1' (a clone with its history is needed)" >&2
    return 1
}

# The last commit of the version before the current one.
previous_commit() {
    local v first
    v=$(control_version <"$ROOT/snowflake.control")
    first=$(git -C "$ROOT" log --reverse --format=%H -S"default_version = '$v'" -- snowflake.control | head -n 1)
    [ -n "$first" ] && git -C "$ROOT" rev-parse -q --verify "$first^" ||
        { echo "bench_releases.sh: no commit before version $v's first (a clone with its history is needed)" >&2; return 1; }
}

for ((j = 0; j < ${#REVS[@]}; j++)); do
    rev=${REVS[j]}
    case $rev in
        previous) c=$(previous_commit) || exit 2; REVS[j]="$(git -C "$ROOT" rev-parse --short "$c") (previous)" ;;
        release:*) c=$(release_commit "${rev#release:}") || exit 2
            REVS[j]="$(git -C "$ROOT" rev-parse --short "$c") (${rev#release:})" ;;
        *) git -C "$ROOT" rev-parse -q --verify "$rev^{commit}" >/dev/null ||
            { echo "bench_releases.sh: $rev is not a commit of $ROOT" >&2; exit 2; } ;;
    esac
done
if [ "$LIST" = 1 ]; then
    for rev in "${REVS[@]}"; do
        echo "$rev: $(git -C "$ROOT" log -1 --format='%h %cs %s' "${rev%% *}" | cut -c1-100)"
    done
    exit 0
fi

# A copy of the installation PG_CONFIG names, below $1, without snowflake's
# files; prints the copy's pg_config.
pg_copy() {
    local dest=$1 pgc bindir sharedir incdir libtree v prefix
    pgc=$(sf_pg_config)
    bindir=$("$pgc" --bindir)
    sharedir=$("$pgc" --sharedir)
    incdir=$("$pgc" --includedir)
    libtree=$(dirname "$bindir")
    v=$(basename "$libtree")
    # What the paths have before /usr/lib/postgresql/V/bin: "" for Debian's
    # own installation, /work/... for a relocated copy.
    prefix=${bindir%/usr/lib/postgresql/"$v"/bin}
    [ "$prefix" != "$bindir" ] || { echo "unexpected PostgreSQL layout: $bindir" >&2; return 1; }
    mkdir -p "$dest$(dirname "${libtree#"$prefix"}")" "$dest$(dirname "${sharedir#"$prefix"}")" \
        "$dest$(dirname "${incdir#"$prefix"}")"
    rsync -a --exclude 'snowflake*' "$libtree" "$dest$(dirname "${libtree#"$prefix"}")/"
    rsync -a --exclude 'snowflake*' "$sharedir" "$dest$(dirname "${sharedir#"$prefix"}")/"
    rsync -a "$incdir" "$dest$(dirname "${incdir#"$prefix"}")/"
    echo "$dest${bindir#"$prefix"}/pg_config"
}

cleanup() {
    local rc=$?
    for d in "$DIR"/b*/; do
        [ -d "$d" ] || continue
        if [ "$rc" -ne 0 ] && [ -f "$d/srv/server.log" ]; then
            { echo "--- last lines of $d/srv/server.log"; tail -n 20 "$d/srv/server.log"; } >&2
        fi
        [ -f "$d/pgc" ] && PG_CONFIG=$(cat "$d/pgc") sf_server_stop "${d}srv" 2>/dev/null || true
    done
    exit "$rc"
}
trap cleanup EXIT

for d in "$DIR"/b*/; do
    [ -f "$d/pgc" ] && PG_CONFIG=$(cat "$d/pgc") sf_server_stop "${d}srv" 2>/dev/null || true
done
rm -rf "$DIR"
mkdir -p "$DIR"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

# Builds: bK/src (the source), bK/pg (PostgreSQL with that build), bK/srv
# (its server), bK/label.
LABELS=()
k=0
add_build() {
    local label=$1 b=$DIR/b$k
    mkdir -p "$b"
    echo "$label" >"$b/label"
    LABELS+=("$label")
    k=$((k + 1))
}
for rev in "${REVS[@]}"; do
    b=$DIR/b$k
    mkdir -p "$b/src"
    git -C "$ROOT" archive --format=tar "${rev%% *}" | tar -x -C "$b/src"
    short=$(git -C "$ROOT" rev-parse --short "${rev%% *}^{commit}")
    if [ "$short" = "${rev%% *}" ]; then add_build "$rev"; else add_build "$rev ($short)"; fi
done
if [ "$TREE" = 1 ]; then
    b=$DIR/b$k
    sf_copy_tree "$ROOT" "$b/src"
    rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')
    git -C "$ROOT" diff --quiet HEAD -- src 2>/dev/null || rev="$rev, src/ modified"
    add_build "working tree ($rev)"
fi
NB=$k

for ((i = 0; i < NB; i++)); do
    b=$DIR/b$i
    pgc=$(pg_copy "$b/pg")
    echo "$pgc" >"$b/pgc"
    chown -R postgres: "$b"
    start=$SECONDS
    # with_llvm=no: no JIT bitcode (jit is off in the benchmark).
    as_postgres sh -c "cd '$b/src' && make -j2 with_llvm=no PG_CONFIG='$pgc' >'$b/build.log' 2>&1 &&
        make install with_llvm=no PG_CONFIG='$pgc' >>'$b/build.log' 2>&1" ||
        { tail -n 30 "$b/build.log" >&2; echo "bench_releases.sh: $(cat "$b/label") does not build" >&2; exit 1; }
    PG_CONFIG=$pgc sf_server_init "$b/srv" "$((PORT + i))" "shared_preload_libraries = 'snowflake'" \
        "snowflake.worker_id = 1" "snowflake.sequence_bits = 16" "snowflake.worker_bits = 3" \
        "snowflake.datacenter_bits = 3" "max_connections = 20" "jit = off" "autovacuum = off"
    PG_CONFIG=$pgc sf_server_start "$b/srv"
    PG_CONFIG=$pgc sf_psql "$b/srv" -d postgres -At \
        -c 'CREATE EXTENSION snowflake' -c 'CREATE SEQUENCE s1 CACHE 1' \
        -c 'CREATE SEQUENCE s100 CACHE 100' \
        -c "SELECT extversion FROM pg_extension WHERE extname = 'snowflake'" >"$b/extversion"
    echo "built $(cat "$b/label"): extension $(cat "$b/extversion"), $((SECONDS - start)) s," \
        "snowflake.so sha256 $(sha256sum "$b/pg"/usr/lib/postgresql/*/lib/snowflake.so | cut -c1-16)"
done

# One build's turn: prints "what|cpu_ns|wall_ns" per query.
turn() {
    local b=$1
    PG_CONFIG=$(cat "$b/pgc") sf_psql "$b/srv" -d postgres -At -v N="$N" <<'SQL'
\set QUIET on
SELECT count(snowflake_nextval()) FROM generate_series(1, 10000) \g /dev/null
CREATE FUNCTION pg_temp.cpu_ns() RETURNS bigint LANGUAGE sql
    AS $$ SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint $$;
CREATE TEMP TABLE m (what text, cpu_ns bigint, wall_ns bigint);
SELECT pg_temp.cpu_ns() AS c0, clock_timestamp() AS t0 \gset
SELECT count(1) FROM generate_series(1, :N) \g /dev/null
INSERT INTO m SELECT 'floor', pg_temp.cpu_ns() - :c0, (extract(epoch FROM clock_timestamp() - :'t0') * 1e9)::bigint;
SELECT pg_temp.cpu_ns() AS c0, clock_timestamp() AS t0 \gset
SELECT count(snowflake_nextval()) FROM generate_series(1, :N) \g /dev/null
INSERT INTO m SELECT 'snowflake', pg_temp.cpu_ns() - :c0, (extract(epoch FROM clock_timestamp() - :'t0') * 1e9)::bigint;
SELECT pg_temp.cpu_ns() AS c0, clock_timestamp() AS t0 \gset
SELECT count(nextval('s1')) FROM generate_series(1, :N) \g /dev/null
INSERT INTO m SELECT 'cache1', pg_temp.cpu_ns() - :c0, (extract(epoch FROM clock_timestamp() - :'t0') * 1e9)::bigint;
SELECT pg_temp.cpu_ns() AS c0, clock_timestamp() AS t0 \gset
SELECT count(nextval('s100')) FROM generate_series(1, :N) \g /dev/null
INSERT INTO m SELECT 'cache100', pg_temp.cpu_ns() - :c0, (extract(epoch FROM clock_timestamp() - :'t0') * 1e9)::bigint;
\set QUIET off
SELECT what || '|' || cpu_ns || '|' || wall_ns FROM m;
SQL
}

RESULTS=$DIR/results
: >"$RESULTS"
for ((r = 0; r < RUNS; r++)); do
    for ((j = 0; j < NB; j++)); do
        i=$(((j + r) % NB))
        turn "$DIR/b$i" | sed "s/^/$r|$i|/" >>"$RESULTS"
    done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

echo
echo "command: bash test/scripts/bench_releases.sh${ARGS:+ $ARGS}"
echo "machine: $(nproc) CPUs ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)), PostgreSQL" \
    "$("$(sf_pg_config)" --version | sed 's/^PostgreSQL //'); load average $LOAD_BEFORE before, $LOAD_AFTER after"
echo "method: $RUNS rounds, builds alternating; N = $N; medians over the rounds; net = query less the floor, per id"
echo
for ((i = 0; i < NB; i++)); do printf '%s\t%s\n' "$i" "$(cat "$DIR/b$i/label"), extension $(cat "$DIR/b$i/extversion")"; done >"$DIR/labels"
python3 - "$RESULTS" "$DIR/labels" "$N" <<'PY'
import statistics, sys
results, labels_file, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
labels = dict(line.rstrip('\n').split('\t', 1) for line in open(labels_file))
t = {}  # (round, build, what) -> (cpu, wall)
for line in open(results):
    r, b, what, cpu, wall = line.strip().split('|')
    t[(r, b, what)] = (int(cpu), int(wall))
rounds = sorted({k[0] for k in t}, key=int)
builds = sorted(labels, key=int)
med = statistics.median
for col, name in ((0, 'backend CPU time'), (1, 'wall clock')):
    print(f'### net ns per id, {name}\n')
    print('| build | snowflake_nextval() | nextval() CACHE 1 | nextval() CACHE 100 '
          '| snowflake / CACHE 100 | snowflake / first build | floor, ns per row |')
    print('|---|---|---|---|---|---|---|')
    first = None
    for b in builds:
        net = {w: [(t[(r, b, w)][col] - t[(r, b, 'floor')][col]) / n for r in rounds]
               for w in ('snowflake', 'cache1', 'cache100')}
        # Ratios of the medians: a ratio per round divides by a difference
        # that noise can bring near zero.
        sf = med(net['snowflake'])
        c100 = med(net['cache100'])
        ratio = sf / c100 if c100 > 0 else float('nan')
        if first is None:
            first = sf
        vs = sf / first if first > 0 else float('nan')
        rng = f"{min(net['snowflake']):.1f}..{max(net['snowflake']):.1f}"
        floor = med([t[(r, b, 'floor')][col] / n for r in rounds])
        print(f"| {labels[b]} | {sf:.1f} [{rng}] | {med(net['cache1']):.1f} "
              f"| {med(net['cache100']):.1f} | {ratio:.3f} | {vs:.3f} | {floor:.0f} |")
    print()
PY
