#!/usr/bin/env bash
# The whole test suite, on a fresh Debian 12 machine, as root:
#
#   bash test/run-all.sh
#
# Installs what it needs, runs the core's unit tests and fuzzers (core/...),
# then builds, installs and tests the extension on
# every PostgreSQL major of SNOWFLAKE_PG_VERSIONS (default "15 17 18 19"):
#   15  Debian 12's, on this machine;
#   17  Debian 13 (trixie)'s, in a Debian root under /var/tmp;
#   18  Debian unstable (sid)'s, in another root;
#   19  Debian experimental's, in a root of Debian unstable (test/lib/pgroot.sh).
# The roots are built with debootstrap on the first run (a few minutes) and
# reused after.  The versions run at the same time; each prints one line per
# suite (pg15/tap, pg17/upgrade-from-15, ...).  Beside them run the release
# checks and the Debian package of every version, built, installed, tested,
# upgraded to and purged in package roots of their own (test/scripts/deb.sh;
# one for 15 too, so that the machine's PostgreSQL is left alone).  The last
# line counts every suite of every version: "N passed, N failed"; the exit
# status is non-zero if any failed.
#
# SNOWFLAKE_TEST_DIR   work directory (default /var/tmp/snowflake-test)
# SNOWFLAKE_ROOTS_DIR  where the roots live (default /var/tmp)
# SNOWFLAKE_CORE_REGRESS_VERSIONS  the versions that run PostgreSQL's own
#                      regression suite with and without snowflake (default
#                      "15 18"; the sources are cached in /var/tmp/snowflake-pgsrc,
#                      in each root for 17 and 18; 19 cannot run it while the
#                      mirror lists postgresql-19's source package but serves
#                      none of its files: 404 for 19~rc1-1 and 19~beta2-1)
# SNOWFLAKE_THIRDPARTY_DIR  where the Citus and pg_tle sources are (default
#                      ../shared/thirdparty next to the checkout; see
#                      test/lib/thirdparty.sh)
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/test/lib/common.sh"
. "$ROOT/test/lib/pgroot.sh"
. "$ROOT/test/lib/citus.sh"
. "$ROOT/test/lib/pgtle.sh"

VERSIONS=${SNOWFLAKE_PG_VERSIONS:-15 17 18 19}
WORK=${SNOWFLAKE_TEST_DIR:-/var/tmp/snowflake-test}
LOGS=$WORK/logs
# Inside a root, the work directory of run-version.sh.
ROOT_WORK=/var/tmp/snowflake-test

for v in $VERSIONS; do
    case $v in
        15 | 17 | 18 | 19) ;;
        *) echo "SNOWFLAKE_PG_VERSIONS: PostgreSQL $v is not one this suite runs (15, 17, 18, 19)"
           echo "0 passed, 1 failed"; exit 1 ;;
    esac
done
selected() { [[ " $VERSIONS " == *" $1 "* ]]; }

echo "== installing dependencies"
sf_install_deps || { echo "dependency installation failed"; echo "0 passed, 1 failed"; exit 1; }
rm -rf "$LOGS"
mkdir -p "$LOGS"

# A suite run here, outside run-version.sh (the roots, packaging): prints
# its line to stdout, its counts to the file given.
# root_suite COUNTS NAME COMMAND...
root_suite() {
    local counts=$1 name=$2
    shift 2
    local log="$LOGS/${name//\//-}.log" start=$SECONDS
    printf '%-34s ' "$name"
    if "$@" >"$log" 2>&1; then
        echo "ok ($((SECONDS - start)) s)"
        echo "1 0" >>"$counts"
    else
        echo "FAILED ($((SECONDS - start)) s), last lines of $log:"
        tail -n 40 "$log" | sed 's/^/    /'
        echo "0 1" >>"$counts"
        echo "$name" >>"$LOGS/failed-suites"
        return 1
    fi
}

# snowflake built for this machine's PostgreSQL 15 into a staging directory
# (nothing installed here), for the root of 17 to upgrade from.
stage_pg15() {
    local d=$WORK/pg15-for-upgrade
    rm -rf "$d"
    sf_copy_tree "$ROOT" "$d/src"
    make -C "$d/src" -j2 with_llvm=no PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config &&
        make -C "$d/src" install with_llvm=no PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config \
            DESTDIR="$d/stage"
}

# Debian 12's PostgreSQL 15 and snowflake for it, into the root $1.
add_pg15() { stage_pg15 && sf_root_add_pg15 "$1" "$WORK/pg15-for-upgrade/stage"; }

# snowflake for the root's PostgreSQL 18 (Debian unstable's, which the root
# of 19 holds beside 19: test/lib/pgroot.sh), for 19 to upgrade from.
add_pg18() {
    local d=/var/tmp/snowflake-pg18-for-upgrade pgc=/usr/lib/postgresql/18/bin/pg_config
    rm -rf "$1$d"
    sf_copy_tree "$ROOT" "$1$d"
    sf_root_run "$1" sh -c "make -C $d -j2 with_llvm=no PG_CONFIG=$pgc && make -C $d install with_llvm=no PG_CONFIG=$pgc"
}

# Citus from its source tarball into the root $1 for PostgreSQL $2.
citus_build() {
    local tarball
    tarball=$(sf_citus_tarball "$ROOT") || return 1
    sf_citus_ensure "$1" "$2" "$tarball"
}

# The suites of PostgreSQL $1 in its Debian root.  Output to stdout; the
# counts of every suite (the root's own and run-version.sh's) to $2.
in_root() {
    local v=$1 counts=$2 r
    r=$(sf_root_path "$v")
    if ! root_suite "$counts" "pg$v/debian-root" sf_root_ensure "$v" /dev/stdout; then
        sf_root_umount "$r"
        return
    fi
    sf_root_mount "$r"
    # shellcheck disable=SC2064
    trap "sf_root_umount '$r'" EXIT
    local env=(SNOWFLAKE_CORE_REGRESS_VERSIONS="${SNOWFLAKE_CORE_REGRESS_VERSIONS:-15 18}")
    [ "$v" != 17 ] || { root_suite "$counts" "pg17/add-pg15" add_pg15 "$r" && env+=(SNOWFLAKE_UPGRADE_FROM=15); }
    [ "$v" != 19 ] || { root_suite "$counts" "pg19/add-pg18" add_pg18 "$r" && env+=(SNOWFLAKE_UPGRADE_FROM=18); }
    if [ "$v" = 17 ] || [ "$v" = 18 ]; then
        # Citus 14.0.1 (16 to 18; none supports 19 yet), built once into the
        # root and cached there (test/lib/citus.sh).  Without its source (a
        # checkout with no ../shared beside it), the Citus suite cannot run:
        # said on a line of its own, not counted.
        if sf_citus_tarball "$ROOT" >/dev/null 2>"$LOGS/pg$v-citus-source.log"; then
            root_suite "$counts" "pg$v/citus-build" citus_build "$r" "$v" && env+=(SNOWFLAKE_CITUS=1)
        else
            printf '%-34s SKIPPED: %s\n' "pg$v/citus" "$(head -n 1 "$LOGS/pg$v-citus-source.log")"
        fi
    fi
    # The tree goes in as files (the postgres user of the root owns its copy).
    rm -rf "$r$ROOT_WORK"
    mkdir -p "$r$ROOT_WORK"
    sf_copy_tree "$ROOT" "$r$ROOT_WORK/checkout"
    # pg_tle's source, for the SQL edition's suite (test/lib/pgtle.sh), goes
    # in beside it: inside the root there is no ../shared.
    local pgtle
    if sf_pgtle_supports "$v" && pgtle=$(sf_pgtle_tarball "$ROOT" "$v" 2>/dev/null); then
        mkdir -p "$r$ROOT_WORK/thirdparty"
        cp "$pgtle" "$r$ROOT_WORK/thirdparty/"
        env+=(SNOWFLAKE_THIRDPARTY_DIR="$ROOT_WORK/thirdparty")
    fi
    sf_root_run "$r" "${env[@]}" bash "$ROOT_WORK/checkout/test/run-version.sh" "$v" "$ROOT_WORK/pg$v"
    if [ -f "$r$ROOT_WORK/pg$v/counts" ]; then
        cat "$r$ROOT_WORK/pg$v/counts" >>"$counts"
        cat "$r$ROOT_WORK/pg$v/failed-suites" >>"$LOGS/failed-suites" 2>/dev/null
    else
        echo "pg$v: run-version.sh ended without counting its suites"
        echo "0 1" >>"$counts"
        echo "pg$v/run-version" >>"$LOGS/failed-suites"
    fi
}

# The Debian package of PostgreSQL $1 (test/scripts/deb.sh): built, checked,
# installed, tested, upgraded to and purged, each step in a throwaway overlay
# of a package root of its own (built once, then cached).  Counts to $2.
debs() {
    local v=$1 counts=$2 r step
    r=$(sf_root_path "$v" deb)
    root_suite "$counts" "pg$v/deb-root" sf_root_ensure "$v" /dev/stdout deb
    local ok=$?
    sf_root_umount "$r"
    [ $ok -eq 0 ] || return
    local steps="build install upgrade"
    # The major upgrade, 18 to 19 with the packages of both, in the root of 19.
    [ "$v" != 19 ] || steps="$steps major"
    for step in $steps; do
        # The upgrade step installs the previous release first, and 1.6 is
        # the first release that builds on PostgreSQL 19: while the current
        # version is 1.6 (or earlier) there is nothing to upgrade from there.
        if [ "$step" = upgrade ] && [ "$v" = 19 ] &&
            case $(sed -n "s/^default_version = '\([^']*\)'.*/\1/p" "$ROOT/snowflake.control") in
                1.5 | 1.6) true ;; *) false ;; esac; then
            printf '%-34s SKIPPED: %s\n' "pg19/deb-upgrade" "no release before 1.6 builds on PostgreSQL 19: nothing to upgrade from"
            continue
        fi
        root_suite "$counts" "pg$v/deb-$step" bash "$ROOT/test/scripts/deb.sh" "$v" "$WORK/deb-pg$v" "$step"
    done
}

# What a release ships: the licence, META.json, make dist (no PostgreSQL
# version to it, so once), and the Debian packages of every version.  They
# touch neither the machine's PostgreSQL nor the roots of 17 and 18, so they
# run in the background beside everything else.  Counts to $1.
packages() {
    local counts=$1 v
    root_suite "$counts" packaging bash "$ROOT/test/scripts/packaging.sh" "$WORK/packaging"
    for v in $VERSIONS; do debs "$v" "$counts"; done
    # README.md as written, in a fresh Debian 12 root (its package route, the demo).
    ! selected 15 || root_suite "$counts" pg15/readme-route bash "$ROOT/test/scripts/readme_route.sh" "$WORK/readme-route"
}

# The core's tests (src/core has no PostgreSQL in it, so once, on this
# machine), with sanitizers, valgrind and the fuzzers: in the background
# beside the versions, as they need no server.  Counts to $1.
core_suites() {
    local counts=$1 d=$WORK/core
    rm -rf "$d"
    sf_copy_tree "$ROOT" "$d"
    chown -R postgres: "$d"
    root_suite "$counts" core/unit as_postgres make -C "$d/test/unit" run
    root_suite "$counts" core/unit-sanitizers as_postgres make -C "$d/test/unit" sanitize
    root_suite "$counts" core/unit-tsan as_postgres make -C "$d/test/unit" tsan
    root_suite "$counts" core/unit-valgrind as_postgres make -C "$d/test/unit" valgrind
    root_suite "$counts" core/fuzz-20s-each as_postgres make -C "$d/test/fuzz" run SECONDS=20
}

# Roots and packages first, in the background: building a root is mostly
# download and unpacking, and its suites wait on the servers more than on
# the CPUs.
pids=()
outs=()
: >"$LOGS/packages.counts"
packages "$LOGS/packages.counts" >"$LOGS/packages.out" 2>&1 &
pids+=($!)
outs+=("$LOGS/packages.out")
: >"$LOGS/core.counts"
core_suites "$LOGS/core.counts" >"$LOGS/core.out" 2>&1 &
pids+=($!)
outs+=("$LOGS/core.out")
for v in $VERSIONS; do
    [ "$v" = 15 ] && continue
    : >"$LOGS/pg$v.counts"
    in_root "$v" "$LOGS/pg$v.counts" >"$LOGS/pg$v.out" 2>&1 &
    pids+=($!)
    outs+=("$LOGS/pg$v.out")
done

if selected 15; then
    bash "$ROOT/test/run-version.sh" 15 "$WORK/pg15"
    cp "$WORK/pg15/counts" "$LOGS/pg15.counts" 2>/dev/null || echo "0 1" >"$LOGS/pg15.counts"
    cat "$WORK/pg15/failed-suites" >>"$LOGS/failed-suites" 2>/dev/null
fi
for i in "${!pids[@]}"; do
    # Shows each root's lines as they come (at once if it has finished).
    tail -n +1 --pid="${pids[$i]}" -f "${outs[$i]}"
    wait "${pids[$i]}"
done

passed=0
failed=0
for c in "$LOGS/packages.counts" "$LOGS/core.counts" $(for v in $VERSIONS; do echo "$LOGS/pg$v.counts"; done); do
    while read -r p f; do
        passed=$((passed + p))
        failed=$((failed + f))
    done <"$c"
done
echo
[ -s "$LOGS/failed-suites" ] && echo "failed suites: $(tr '\n' ' ' <"$LOGS/failed-suites")"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
