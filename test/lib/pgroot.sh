# Debian roots that hold the PostgreSQL majors this machine's Debian does not
# ship (source, don't run).  Debian 12 has PostgreSQL 15; 17 comes from
# Debian 13 (trixie), 18 from Debian unstable (sid) and 19 from Debian
# experimental on top of unstable, each in a root of its own built with
# debootstrap and cached under /var/tmp between runs.
#
# Package roots (KIND "deb"), one per major, 15 (Debian 12) included, hold
# the server and the Debian packaging tools and nothing built by the suites:
# the package tests (test/scripts/deb.sh) build and install the packages in
# throwaway overlays of them, so no make install ever lands in one.
#
#   sf_root_path 17 [deb]        -> /var/tmp/snowflake-root-pg17 (-debroot- for deb)
#   sf_root_ensure 17 LOG [deb]  builds (first run) or updates the root; 0 if usable
#   sf_root_mount DIR        /proc, /dev, /dev/pts inside it (idempotent)
#   sf_root_umount DIR       undoes sf_root_mount
#   sf_root_run DIR CMD...   runs a command inside it, as root
#
# Needs root and debootstrap.  Set SNOWFLAKE_ROOTS_DIR to keep the roots
# elsewhere, SNOWFLAKE_ROOTS_REFRESH=1 to rebuild them from scratch.

SF_MIRROR=${SNOWFLAKE_MIRROR:-http://deb.debian.org/debian}
SF_ROOTS_DIR=${SNOWFLAKE_ROOTS_DIR:-/var/tmp}

# The Debian suite that ships a PostgreSQL major.
sf_root_suite() {
    case $1 in
        15) echo bookworm ;;
        17) echo trixie ;;
        18 | 19) echo sid ;;
        *) return 1 ;;
    esac
}

# The packages of a PostgreSQL major that may come from Debian experimental
# (19, while unstable has no PostgreSQL 19): the server, its client and
# headers, its modules (JIT, pgaudit) and libpq.  Pinned at unstable's
# priority, so apt takes the highest version of each from either suite -- a
# release as soon as one of them has it -- and everything else from unstable
# only (experimental as a whole would bring a newer perl, and more).
sf_root_experimental() {
    case $1 in
        19) echo "postgresql-19 postgresql-19-* postgresql-client-19 postgresql-server-dev-19 libpq5 libpq-dev" ;;
    esac
}

# sf_root_sources ROOT VERSION: apt's sources and pins inside a root.
sf_root_sources() {
    local r=$1 v=$2 suite exp
    suite=$(sf_root_suite "$v") || return 1
    exp=$(sf_root_experimental "$v")
    {
        echo "deb $SF_MIRROR $suite main"
        [ -z "$exp" ] || echo "deb $SF_MIRROR experimental main"
    } >"$r/etc/apt/sources.list"
    if [ -n "$exp" ]; then
        printf 'Package: %s\nPin: release a=experimental\nPin-Priority: 500\n' "$exp" \
            >"$r/etc/apt/preferences.d/snowflake-experimental"
    else
        rm -f "$r/etc/apt/preferences.d/snowflake-experimental"
    fi
}

sf_root_path() { echo "$SF_ROOTS_DIR/snowflake-${2:-}root-pg$1"; }

# What the suites need inside a root.  Written into the root's stamp file, so
# that a changed list updates a cached root.
sf_root_packages() {
    # A fresh root: Debian as debootstrap makes it (test/scripts/readme_route.sh).
    [ "${2:-}" != fresh ] || return 0
    if [ "${2:-}" = deb ]; then
        # Building (build-essential, debhelper, pg_buildext of
        # postgresql-server-dev-all, fakeroot), checking (lintian) and
        # testing (autopkgtest) the packages.
        echo "postgresql-$1 postgresql-server-dev-$1 postgresql-server-dev-all debhelper" \
            "fakeroot lintian autopkgtest libpq-dev build-essential rsync procps"
        # The major upgrade from 18 (deb.sh major): Debian unstable's 18 beside 19.
        [ "$1" != 19 ] || echo "postgresql-18"
        return
    fi
    echo "postgresql-$1 postgresql-server-dev-$1 make g++ libpqxx-dev libipc-run-perl" \
        "faketime rsync procps locales-all python3 gdb dpkg-dev postgresql-$1-pgaudit"
    # pg_upgrade from 18 to 19: Debian unstable's 18 beside 19 (run-all.sh).
    [ "$1" != 19 ] || echo "postgresql-18 postgresql-server-dev-18"
    # The Django client suite runs on 18 (Debian unstable's Django 5.2).
    [ "$1" != 18 ] || echo "python3-django python3-psycopg2"
    # The SQL edition's suite builds pg_tle on 17, 18 and 19 (test/lib/pgtle.sh).
    [ "$1" -lt 17 ] || echo "flex bison libkrb5-dev"
}

# Every mount below DIR, deepest first.
sf_root_mounts_below() {
    local dir
    dir=$(readlink -f "$1")
    awk -v d="$dir" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/mounts | sort -r
}

sf_root_mount() {
    local r=$1
    mountpoint -q "$r/proc" || mount -t proc proc "$r/proc"
    mountpoint -q "$r/dev" || mount --bind /dev "$r/dev"
    mountpoint -q "$r/dev/pts" || mount --bind /dev/pts "$r/dev/pts"
}

sf_root_umount() {
    local m
    for m in $(sf_root_mounts_below "$1"); do
        umount "$m" 2>/dev/null || umount -l "$m"
    done
}

# sf_overlay_mount ROOT DIR: a throwaway copy-on-write view of ROOT at
# DIR/merged, with /proc and /dev inside it.  Every write goes to DIR/upper,
# never to ROOT (which must not change while the overlay is mounted).
sf_overlay_mount() {
    local r=$1 d=$2
    sf_overlay_remove "$d" || return 1
    mkdir -p "$d/upper" "$d/work" "$d/merged"
    mount -t overlay overlay -o "lowerdir=$r,upperdir=$d/upper,workdir=$d/work" "$d/merged" || return 1
    sf_root_mount "$d/merged"
}

# sf_overlay_kill MERGED: kills (-9) every process whose root is the overlay
# mounted at MERGED (a server a failed step left running), so that it can be
# unmounted.
sf_overlay_kill() {
    local m=$1 p pids=
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" = "$m" ] && pids="$pids ${p#/proc/}"
    done
    [ -n "$pids" ] || return 0
    echo "stopping what still runs in the overlay:$pids" >&2
    # shellcheck disable=SC2086
    kill -9 $pids 2>/dev/null || true
    sleep 1
}

# sf_overlay_remove DIR: unmounts the overlay at DIR/merged and throws its
# writes away.
sf_overlay_remove() {
    local d=$1
    [ -e "$d" ] || return 0
    sf_root_umount "$d"
    if [ -n "$(sf_root_mounts_below "$d")" ]; then
        echo "still mounted below $d, not removing it" >&2
        return 1
    fi
    rm -rf --one-file-system "$d"
}

# Removes a root, but never while anything is mounted inside it (a bind mount
# of /dev would take the machine's /dev with it).
sf_root_remove() {
    local r=$1
    [ -e "$r" ] || return 0
    sf_root_umount "$r"
    if [ -n "$(sf_root_mounts_below "$r")" ]; then
        echo "still mounted below $r, not removing it" >&2
        return 1
    fi
    rm -rf --one-file-system "$r"
}

sf_root_run() {
    local r=$1
    shift
    chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
        DEBIAN_FRONTEND=noninteractive CI="${CI:-}" "$@"
}

# apt inside a root.  sid's Release file may be past its Valid-Until date on
# the mirror, so that check is off (the signatures are still checked).
sf_root_apt() {
    local r=$1
    shift
    sf_root_run "$r" apt-get -q -o Acquire::Check-Valid-Until=false -o Acquire::Retries=3 "$@"
}

# sf_root_ensure VERSION LOG [deb|fresh]: a usable root for that PostgreSQL
# major (a package root with deb; with fresh, the Debian release of that
# major with nothing installed), built on first use.  Output goes to LOG.
# Returns non-zero if it cannot be made.
sf_root_ensure() {
    local v=$1 log=$2 kind=${3:-} suite r stamp want exp
    suite=$(sf_root_suite "$v") || { echo "no Debian root known for PostgreSQL $v" >"$log"; return 1; }
    exp=$(sf_root_experimental "$v")
    r=$(sf_root_path "$v" "$kind")
    stamp="$r/etc/snowflake-root"
    want="$suite${exp:+ (from experimental: $exp)}: $(sf_root_packages "$v" "$kind")"
    {
        if [ "${SNOWFLAKE_ROOTS_REFRESH:-0}" = 1 ]; then
            sf_root_remove "$r" || return 1
        fi
        if [ ! -d "$r" ]; then
            # Built aside and moved into place: a root that exists is complete.
            sf_root_remove "$r.new" || return 1
            echo "== debootstrap $suite into $r"
            debootstrap --variant=minbase "$suite" "$r.new" "$SF_MIRROR" || return 1
            # No service starts inside the root, and no cluster of Debian's
            # own: the suites run their servers themselves.  (Clusters made
            # by hand with pg_createcluster still include conf.d, as on Debian.)
            printf '#!/bin/sh\nexit 101\n' >"$r.new/usr/sbin/policy-rc.d"
            chmod 755 "$r.new/usr/sbin/policy-rc.d"
            # (A fresh root, for README.md's route, is left as Debian has it.)
            if [ "$kind" != fresh ]; then
                mkdir -p "$r.new/etc/postgresql-common"
                printf "create_main_cluster = false\nadd_include_dir = 'conf.d'\n" \
                    >"$r.new/etc/postgresql-common/createcluster.conf"
            fi
            mv "$r.new" "$r"
        fi
        sf_root_mount "$r"
        sf_root_sources "$r" "$v" || return 1
        # Name resolution for apt, as on the machine.
        cp -L /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null || true
        if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
            echo "== installing $want"
            # shellcheck disable=SC2046
            sf_root_apt "$r" update &&
                sf_root_apt "$r" install -y --no-install-recommends \
                    -o Dpkg::Options::=--force-confold $(sf_root_packages "$v" "$kind") ||
                return 1
            # The downloaded packages are not needed again (some 400 MB).
            sf_root_apt "$r" clean
            echo "$want" >"$stamp"
        fi
        [ "$kind" = fresh ] || sf_root_run "$r" "/usr/lib/postgresql/$v/bin/postgres" --version
    } >"$log" 2>&1
}

# sf_root_add_pg15 ROOT STAGE: copies this machine's PostgreSQL 15 (Debian
# 12's) into a Debian root, so that pg_upgrade from 15 can run there with the
# old and new binaries on one system.  STAGE holds snowflake built for 15
# (make install DESTDIR=STAGE).  Debian 12's binaries run on the root's newer
# glibc; the shared libraries they need that the root lacks (by soname, e.g.
# libicu72) are copied from this machine into one directory on the root's
# library path.  Only missing sonames are copied, so nothing of the root's
# own libraries is shadowed.  The JIT provider (libLLVM) is left out.
sf_root_add_pg15() {
    local r=$1 stage=$2 libdir=/usr/lib/postgresql/15/bookworm-libs pass missing so path
    rm -rf "$r/usr/lib/postgresql/15" "$r/usr/share/postgresql/15"
    mkdir -p "$r/usr/lib/postgresql" "$r/usr/share/postgresql" "$r/etc/ld.so.conf.d"
    cp -a /usr/lib/postgresql/15 "$r/usr/lib/postgresql/" || return 1
    cp -a /usr/share/postgresql/15 "$r/usr/share/postgresql/" || return 1
    # Only this tree's build of snowflake, whatever the machine has installed.
    rm -rf "$r"/usr/lib/postgresql/15/lib/llvmjit*.so "$r"/usr/lib/postgresql/15/lib/snowflake.so \
        "$r"/usr/lib/postgresql/15/lib/bitcode/snowflake* "$r"/usr/share/postgresql/15/extension/snowflake*
    cp -a "$stage/usr/lib/postgresql/15/." "$r/usr/lib/postgresql/15/" || return 1
    cp -a "$stage/usr/share/postgresql/15/." "$r/usr/share/postgresql/15/" || return 1
    mkdir -p "$r$libdir"
    echo "$libdir" >"$r/etc/ld.so.conf.d/zz-postgresql-15-bookworm.conf"
    for pass in 1 2 3 4 5 6; do
        sf_root_run "$r" ldconfig
        missing=$(sf_root_run "$r" sh -c '
            for f in /usr/lib/postgresql/15/bin/* /usr/lib/postgresql/15/lib/*.so '"$libdir"'/*; do
                [ -f "$f" ] && ldd "$f" 2>/dev/null
            done' | awk '$2 == "=>" && $3 == "not" { print $1 }' | sort -u)
        if [ -z "$missing" ]; then
            echo "PostgreSQL 15 added to $r ($(ls "$r$libdir" | wc -l) libraries from this machine)"
            return 0
        fi
        for so in $missing; do
            path=$(ldconfig -p | awk -v s="$so" '$1 == s && /x86-64/ { print $NF; exit }')
            [ -n "$path" ] || { echo "$so is needed by PostgreSQL 15 but not on this machine"; return 1; }
            cp -L "$path" "$r$libdir/$so"
        done
    done
    echo "could not close PostgreSQL 15's library dependencies in $r"
    return 1
}
