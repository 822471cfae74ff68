#!/usr/bin/env bash
# The Debian package of one PostgreSQL major, built, checked, installed,
# tested, upgraded to and purged.  As root, from a git checkout:
#
#   bash test/scripts/deb.sh VERSION WORKDIR STEP
#
#   build    dpkg-buildpackage -us -uc -b, run before the server is installed
#            (as the README's route does), builds a package (and its -dbgsym)
#            at the changelog's version for every major of debian/pgversions
#            whose server headers the root has -- VERSION's, and 18's in the
#            root of 19 (postgresql-server-dev-all of Debian unstable brings
#            them) -- and nothing else, without a warning of the compiler or
#            of dpkg (DPKG_ALLOWED below: none); each package's dependencies on
#            the server (postgresql-N, postgresql-N-jit-llvm, Breaks) are those
#            of the distribution's own package of that major (pgvector's, else
#            pgaudit's); lintian reports no error and no warning
#            (LINTIAN_ALLOWED below, each with its reason); the package holds exactly
#            what make install installs, which is the library, the control
#            file, every SQL script the build makes from src/sql (make
#            sql-scripts) and, the server having JIT, the bitcode, plus
#            Debian's copyright and changelog, the documentation (README.md
#            and docs/*.md) in /usr/share/doc/postgresql-N-snowflake and the
#            hook /etc/postgresql-common/pg_upgradecluster.d/snowflake-N.  The
#            build, and debian/rules clean after it, leave the tree as git
#            has it: `git status --porcelain` shows nothing (the build runs in
#            a git repository holding the tree).  The .debs go to
#            WORKDIR/debs for the other steps.
#   install  apt install ./postgresql-VERSION-snowflake_*.deb into a
#            PostgreSQL that holds no snowflake file; the regression suite,
#            preloaded and not, against the installed package (the package's
#            own test, debian/tests/installcheck, run by `autopkgtest -B . --
#            null` in the tree as committed, as in a fresh clone); the
#            documentation installed (dpkg -L), as in the tree; apt
#            purge, after which nothing of the package is left and /usr and
#            /etc are as before.
#   upgrade  the previous release (below) built with this debian/ directory
#            and installed; a cluster made the Debian way (pg_createcluster,
#            conf.d/snowflake.conf) with it preloaded makes ids; apt install
#            of this package over it, ids; the server restarted, ids; ALTER
#            EXTENSION snowflake UPDATE to the control file's version, ids.
#            Every batch of ids is above every id made before it.  apt-get
#            remove under the running server warns that it has the library
#            loaded, and a new session's snowflake function then fails as
#            docs/operations.md says; installed again, it decodes.  Then the
#            cluster is dropped and the package purged, leaving nothing.
#   major    (19 only, in its root, which has PostgreSQL 18 too) a major
#            upgrade from 18 to 19 with the packages of both, each route of
#            docs/operations.md ("Upgrading PostgreSQL"): a cluster of 18 made
#            the Debian way, preloading the library through conf.d with an
#            identity of its own, makes ids; then (1) pg_upgradecluster
#            --method=upgrade --no-start, after which the new cluster has the
#            old conf.d/snowflake.conf and snowflake.state (the package's
#            hook) and starts at once; (2) pg_upgrade by hand into a cluster
#            given the old settings, whose first start without the old
#            snowflake.state is refused, naming it, and which starts once it
#            is copied in.  Each new cluster's ids carry the old identity and
#            are above every id of its old cluster.  Then the clusters are
#            dropped and both packages purged, leaving nothing.
#
# Where, and why there.  Each step runs in a fresh overlay (mount -t overlay)
# of the package root of VERSION: a Debian root (12 for 15, 13 for 17,
# unstable for 18, unstable with experimental's PostgreSQL for 19) that holds the server, its headers and the packaging tools
# and nothing else, built with debootstrap and cached under /var/tmp like the
# test roots (sf_root_ensure VERSION LOG deb, test/lib/pgroot.sh).  No suite
# ever runs make install in a package root, and every write of a step lands in
# the overlay's upper layer, which is thrown away after it: each step starts
# from a PostgreSQL that has never seen make install nor an earlier package
# (and checks so before installing).  Not the machine's PostgreSQL 15 nor the
# test roots of 17 and 18: run-version.sh make-installs into those while these
# steps run beside it, and an overlay's lower layer must not change while it
# is mounted.  The price is three more roots (about 1.5 GB each, a minute
# each on the first run).
#
# The previous release is the last commit before the control file's
# default_version became the current one (the last 1.4 commit while 1.5 is in
# progress), or SNOWFLAKE_DEB_PREVIOUS (a commit).  Its source, from git, gets
# this debian/ directory and a changelog entry at its own version.  Its
# package is built once per major, commit, server version and debian/
# directory, and cached in SNOWFLAKE_DEB_CACHE (default
# /var/tmp/snowflake-deb-cache).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/../lib/pgroot.sh"

V=${1:?usage: deb.sh VERSION WORKDIR build|install|upgrade|major}
WORK=${2:?usage: deb.sh VERSION WORKDIR build|install|upgrade|major}
STEP=${3:?usage: deb.sh VERSION WORKDIR build|install|upgrade|major}
CACHE=${SNOWFLAKE_DEB_CACHE:-/var/tmp/snowflake-deb-cache}
PKG=postgresql-$V-snowflake
R=$(sf_root_path "$V" deb)
mkdir -p "$WORK"
OV=$(readlink -f "$WORK")/overlay
M=$OV/merged
# The work directory inside the overlay, and the server's programs.
IN=/var/tmp/snowflake-deb
PGBIN=/usr/lib/postgresql/$V/bin

fail() { echo "deb.sh $STEP, PostgreSQL $V: $*" >&2; exit 1; }

# The warnings accepted, each with its reason; any other fails the step.
# dpkg's (and the compiler's) during the build: an extended regular
# expression for the line, a tab, the reason.  (That the right packages were
# built is checked apart.)
DPKG_ALLOWED=(
    "dpkg-genchanges: warning: package postgresql-[0-9]+-snowflake in control file but not in files list\$	debian/control lists a package for every major of debian/pgversions, and the build leaves out those whose server headers the machine lacks (dh -N, debian/rules) rather than rewrite debian/control, a tracked file, to list only the majors at hand; dpkg-genchanges names each package left out."
)
# lintian's, by tag, a tab, the reason.
LINTIAN_ALLOWED=(
    "initial-upload-closes-no-bugs	Debian's rule that a new package's first upload closes its ITP (intent to package) bug; this package is not in Debian and has no such bug, and lintian's own description says the warning can be ignored for a package not intended for Debian."
    "newer-standards-version	Debian 12's lintian knows Debian Policy up to 4.6.2, Debian 13's up to 4.7.2; the package follows the current Policy, 4.7.4, which Debian unstable's lintian checks it against (there this tag cannot occur)."
    "missing-debian-watch-file-standard	Debian 12's lintian (and any before format 5) looks for a version= line; debian/watch is in watch file format 5 (Version: 5), whose Untrackable field says why there is nothing to watch yet, and which Debian unstable's lintian reads without a tag."
)
inroot() { sf_root_run "$M" "$@"; }

[ -f "$R/etc/snowflake-root" ] || fail "no package root at $R (sf_root_ensure $V LOG deb builds it)"

# Leaves nothing running in the overlay (a server of a failed step), then
# removes it.
cleanup() {
    if [ -d "$M/etc/postgresql/$V/main" ]; then
        inroot pg_ctlcluster "$V" main stop -m immediate >/dev/null 2>&1 || true
    fi
    sf_overlay_kill "$M"
    sf_overlay_remove "$OV"
}
sf_overlay_mount "$R" "$OV" || fail "cannot mount an overlay of $R"
trap cleanup EXIT
mkdir -p "$M$IN"
chmod 755 "$M$IN"

# The version the tree is at: snowflake.control's, as x.y.0 for Debian.
semver() { if [[ $1 =~ ^[0-9]+\.[0-9]+$ ]]; then echo "$1.0"; else echo "$1"; fi; }
control_version() { sed -n "s/^default_version = '\([^']*\)'.*/\1/p"; }
EXTVERSION=$(control_version <"$ROOT/snowflake.control")
DEBVERSION=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -SVersion)

# copy_tree DEST: the checkout's tracked and not-ignored files (no build
# outputs) into the overlay.
copy_tree() {
    mkdir -p "$M$1"
    (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard) |
        rsync -a --from0 --files-from=- "$ROOT"/ "$M$1"/
}

# build_debs SRCDIR: dpkg-buildpackage in the overlay; the log in SRCDIR/../build.log.
build_debs() {
    local src=$1 log
    log="$M$(dirname "$src")/build.log"
    if ! inroot sh -c "cd '$src' && DEB_BUILD_OPTIONS=parallel=2 dpkg-buildpackage -us -uc -b" >"$log" 2>&1; then
        tail -n 40 "$log"
        fail "dpkg-buildpackage failed in $src"
    fi
    # Every warning, the compiler's and dpkg's, but those of DPKG_ALLOWED.
    local warnings entry
    warnings=$(grep -n 'warning:' "$log" || true)
    for entry in "${DPKG_ALLOWED[@]}"; do
        warnings=$(grep -Ev -- "${entry%%$'\t'*}" <<<"$warnings" || true)
    done
    if [ -n "$warnings" ]; then
        echo "$warnings"
        fail "the package build is not warning-free"
    fi
}

# Every file and directory under /usr and /etc of the overlay, and dpkg's
# records, to compare before an install and after the purge.  The clusters'
# configuration is left out (pg_dropcluster's job).
tree_listing() {
    inroot sh -c 'find /usr /etc /var/lib/dpkg/info -xdev ! -path "/etc/postgresql/*" | sort'
}

# No file of snowflake anywhere in the server's directories, nor a package.
assert_clean() {
    local left
    left=$(inroot sh -c "find /usr/lib/postgresql /usr/share/postgresql /usr/share/doc -name '*snowflake*'")
    [ -z "$left" ] || fail "snowflake files in the server's directories $1: $left"
    # Status "?n": not installed, no configuration files left.
    if inroot dpkg-query -W -f '${db:Status-Abbrev}\n' "$PKG" 2>/dev/null | grep -qv '^.n'; then
        fail "dpkg has $PKG $1: $(inroot dpkg-query -W -f '${db:Status-Abbrev} ${Version}' "$PKG")"
    fi
}

# apt_install DEB: apt install ./FILE from its directory, as a user would.
apt_install() {
    inroot sh -c "cd '$(dirname "$1")' && apt-get install -y -q --no-install-recommends './$(basename "$1")'"
}

installed_version() { inroot dpkg-query -W -f '${db:Status-Abbrev}${Version}' "$PKG"; }

# purge_and_check BEFORE: apt purge, then nothing of the package is left:
# dpkg forgot it, none of its files exists, and the listing equals BEFORE.
purge_and_check() {
    local before=$1 files
    files=$(inroot dpkg-query -L "$PKG")
    inroot apt-get purge -y -q "$PKG"
    assert_clean "after apt purge"
    while read -r f; do
        if [ -n "$f" ] && [ ! -d "$M$f" ] && [ -e "$M$f" ]; then fail "$f is left after apt purge"; fi
    done <<<"$files"
    diff "$before" <(tree_listing) || fail "apt purge leaves /usr or /etc not as they were before the install"
    echo "purged: no file of $PKG is left"
}

# The postgresql-* entries of a dependency field, one a line: server_deps
# FIELD DEB (a built package) or server_deps FIELD - PACKAGE (apt's candidate).
server_deps() {
    local field=$1 deb=$2 pkg=${3:-}
    if [ "$deb" = - ]; then
        inroot apt-cache show --no-all-versions "$pkg" | sed -n "s/^$field: //p"
    else
        dpkg-deb -f "$deb" "$field"
    fi | tr ',' '\n' | sed 's/^ *//; s/ *$//' | grep '^postgresql-' | sort || true
}

# check_server_deps MAJOR DEB: its dependencies on the server are those of
# the distribution's own package of an extension for that major.
check_server_deps() {
    local v=$1 deb=$2 ref field
    for ref in "postgresql-$v-pgvector" "postgresql-$v-pgaudit" ""; do
        [ -n "$ref" ] || fail "neither postgresql-$v-pgvector nor postgresql-$v-pgaudit is known to apt, to compare with"
        inroot apt-cache show --no-all-versions "$ref" >/dev/null 2>&1 && break
    done
    for field in Depends Breaks; do
        diff <(server_deps "$field" - "$ref") <(server_deps "$field" "$deb") >&2 ||
            fail "$(basename "$deb"): $field on the server (right) is not $ref's (left)"
    done
    echo "postgresql-$v-snowflake: Depends $(server_deps Depends "$deb" | paste -sd, -)," \
        "Breaks $(server_deps Breaks "$deb" | paste -sd, -), as $ref $(inroot apt-cache show --no-all-versions "$ref" | sed -n 's/^Version: //p')"
}

# git in the build tree of step_build (whoever owns the checkout it copies).
srcgit() { git -c safe.directory="$M$IN/src" -C "$M$IN/src" "$@"; }

# tree_unchanged WHEN: git shows no file of the build tree changed, added or
# removed.
tree_unchanged() {
    local changed
    changed=$(srcgit status --porcelain)
    [ -z "$changed" ] || fail "$1 changes the tree (git status --porcelain): $changed"
}

step_build() {
    local debs deb stage want have pkgfiles majors v
    rm -rf "$WORK/debs"
    copy_tree "$IN/src"
    # A git repository of the tree, as a clone is, so that git says whether
    # the build changed it.
    srcgit init -q
    srcgit add -A
    srcgit -c user.name=deb.sh -c user.email=deb.sh@localhost commit -q -m tree
    # Built before the server is installed, as the README's route does: its
    # headers only (the root's server, and its JIT, removed in the overlay).
    inroot sh -c "dpkg -r --force-depends postgresql-$V postgresql-$V-jit >/dev/null 2>&1 || true"
    build_debs "$IN/src"
    tree_unchanged "dpkg-buildpackage"
    inroot sh -c "cd '$IN/src' && debian/rules clean" >"$M$IN/clean.log" 2>&1 ||
        { tail -n 20 "$M$IN/clean.log"; fail "debian/rules clean failed"; }
    tree_unchanged "debian/rules clean"
    echo "the tree is as git has it after dpkg-buildpackage and after debian/rules clean"
    debs=$(cd "$M$IN" && ls -- *.deb)
    echo "built: ${debs//$'\n'/ }"
    local arch
    arch=$(inroot dpkg --print-architecture)
    # The majors of debian/pgversions whose headers the root has.
    majors=$(inroot dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' 'postgresql-server-dev-[0-9]*' |
        sed -n 's/^ii  *postgresql-server-dev-\([0-9]*\)$/\1/p' |
        grep -xF -f <(sed -e 's/#.*//' -e '/^ *$/d' "$ROOT/debian/pgversions") | sort -n)
    [[ " $(echo $majors) " == *" $V "* ]] || fail "the root has no server headers of $V (majors: $majors)"
    want=$(for v in $majors; do
        printf '%s\n' "postgresql-$v-snowflake-dbgsym_${DEBVERSION}_$arch.deb" "postgresql-$v-snowflake_${DEBVERSION}_$arch.deb"
    done | sort)
    [ "$debs" = "$want" ] ||
        fail "dpkg-buildpackage built ${debs//$'\n'/ }, not ${want//$'\n'/ } (PostgreSQL $(echo $majors))"
    for v in $majors; do check_server_deps "$v" "$M$IN/postgresql-$v-snowflake_${DEBVERSION}_$arch.deb"; done

    # lintian: no error, no warning, but the tags of LINTIAN_ALLOWED.
    # Informational tags are printed.
    local entry suppress=
    for entry in "${LINTIAN_ALLOWED[@]}"; do suppress=${suppress:+$suppress,}${entry%%$'\t'*}; done
    inroot sh -c "cd '$IN' && lintian --fail-on error,warning --info --display-level '>=info' \
        ${suppress:+--suppress-tags $suppress} ./*.changes" ||
        fail "lintian reports an error or a warning"
    echo "lintian: no error, no warning${suppress:+ (accepted: $suppress)}"

    # The package's files against make install's, and both against the tree.
    deb="$M$IN/${PKG}_${DEBVERSION}_$arch.deb"
    stage=$IN/make-install
    copy_tree "$stage/src"
    inroot make -C "$stage/src" -s -j2 PG_CONFIG="$PGBIN/pg_config" >/dev/null
    inroot make -C "$stage/src" -s install DESTDIR="$stage/root" PG_CONFIG="$PGBIN/pg_config" >/dev/null
    have=$(cd "$M$stage/root" && find . ! -type d | sed 's|^\./|/|' | sort)
    local lib share
    lib=$(inroot "$PGBIN/pg_config" --pkglibdir)
    share=$(inroot "$PGBIN/pg_config" --sharedir)
    want=$({
        echo "$lib/snowflake.so"
        echo "$share/extension/snowflake.control"
        inroot make -C "$stage/src" -s --no-print-directory sql-scripts PG_CONFIG="$PGBIN/pg_config" |
            sed "s|^|$share/extension/|"
        if inroot "$PGBIN/pg_config" --configure | grep -q -- --with-llvm; then
            echo "$lib/bitcode/snowflake.index.bc"
            (cd "$ROOT" && git ls-files 'src/*.cpp') | sed "s|^\(.*\)\.cpp$|$lib/bitcode/snowflake/\1.bc|"
        fi
    } | sort)
    diff <(echo "$want") <(echo "$have") ||
        fail "make install (right) does not install what the tree holds (left)"
    # The documentation as it is in the tree, gzipped or not (dh_compress
    # gzips the larger pages).
    pkgfiles=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./|/|' |
        sed -E "s|^(/usr/share/doc/$PKG/.*\.md)\.gz\$|\1|" | sort)
    diff <({ echo "$have"; echo "/usr/share/doc/$PKG/changelog.Debian.gz"; echo "/usr/share/doc/$PKG/copyright"; doc_files;
             echo "/etc/postgresql-common/pg_upgradecluster.d/snowflake-$V"; } | sort) \
        <(echo "$pkgfiles") ||
        fail "the package (right) does not hold exactly what make install installs (left), with Debian's copyright and changelog, the documentation and the pg_upgradecluster hook"
    echo "contents: the package holds what make install installs ($(echo "$have" | wc -l) files), Debian's copyright and changelog, the documentation ($(doc_files | wc -l) pages) and the pg_upgradecluster hook"

    mkdir -p "$WORK/debs"
    cp "$M$IN"/*.deb "$M$IN"/*.changes "$WORK/debs/"
    source_package
}

# The source package, as docs/operations.md builds it: the orig tarball from
# git (HEAD, without debian/), then dpkg-buildpackage -S -d in the tree
# unpacked from it with this debian/.  Without a warning; it lists a package
# for every major of debian/pgversions, whichever the root has; lintian on it as on the binaries.
source_package() {
    local up=${DEBVERSION%-*} s=$IN/source entry suppress= log majors
    majors=$(sed -e 's/#.*//' "$ROOT/debian/pgversions" | xargs)
    mkdir -p "$M$s"
    git -C "$ROOT" archive --format=tar --prefix="pg-snowflake-$up/" HEAD -- . ':!debian' |
        xz >"$M$s/pg-snowflake_$up.orig.tar.xz"
    tar -xJf "$M$s/pg-snowflake_$up.orig.tar.xz" -C "$M$s"
    cp -r "$ROOT/debian" "$M$s/pg-snowflake-$up/"
    log=$M$s/source.log
    inroot sh -c "cd '$s/pg-snowflake-$up' && dpkg-buildpackage -S -us -uc -d" >"$log" 2>&1 ||
        { tail -n 30 "$log"; fail "dpkg-buildpackage -S failed"; }
    if grep -n 'warning:' "$log"; then fail "the source package build is not warning-free"; fi
    local dsc=$M$s/pg-snowflake_$DEBVERSION.dsc have want
    have=$(sed -n '/^Package-List:/,/^[^ ]/p' "$dsc" | grep -o 'postgresql-[0-9]*-snowflake ' | sort -V | xargs)
    want=$(for v in $majors; do echo "postgresql-$v-snowflake"; done | xargs)
    [ "$have" = "$want" ] || fail "the source package lists $have, not $want"
    for entry in "${LINTIAN_ALLOWED[@]}"; do suppress=${suppress:+$suppress,}${entry%%$'\t'*}; done
    inroot sh -c "cd '$s' && lintian --fail-on error,warning --info --display-level '>=info' \
        ${suppress:+--suppress-tags $suppress} ./*_source.changes" ||
        fail "lintian reports an error or a warning on the source package"
    echo "source package: $(basename "$dsc"), binary packages $have; lintian: no error, no warning"
}

# The documentation the package holds, where it installs it: README.md and
# docs/*.md of the tree.
doc_files() {
    (cd "$ROOT" && git ls-files README.md 'docs/*.md') | sed "s|^|/usr/share/doc/$PKG/|"
}

# docs_installed: every page of doc_files is a file of the installed package
# (dpkg -L), gzipped or not, and reads as the tree's page.
docs_installed() {
    local listed f page
    listed=$(inroot dpkg -L "$PKG")
    for f in $(doc_files); do
        page=${f#/usr/share/doc/$PKG/}
        if grep -qxF "$f" <<<"$listed"; then
            cmp -s "$M$f" "$ROOT/$page" || fail "$f is not the tree's $page"
        elif grep -qxF "$f.gz" <<<"$listed"; then
            zcat "$M$f.gz" | cmp -s - "$ROOT/$page" || fail "$f.gz is not the tree's $page"
        else
            fail "dpkg -L $PKG lists neither $f nor $f.gz"
        fi
    done
    echo "documentation: $(doc_files | wc -l) pages in /usr/share/doc/$PKG (dpkg -L), as in the tree"
}

current_deb() {
    local deb
    deb=$(ls "$WORK"/debs/"${PKG}"_*.deb 2>/dev/null) || fail "no package in $WORK/debs: run the build step first"
    echo "$deb"
}

step_install() {
    local deb before
    deb=$(current_deb)
    assert_clean "before the install"
    mkdir -p "$M$IN/debs"
    cp "$deb" "$M$IN/debs/"
    chmod -R a+rX "$M$IN"
    before=$WORK/before-install.list
    tree_listing >"$before"
    apt_install "$IN/debs/$(basename "$deb")"
    [ "$(installed_version)" = "ii $DEBVERSION" ] || fail "$PKG is not installed at $DEBVERSION: $(installed_version)"
    echo "installed: $PKG $DEBVERSION"
    docs_installed
    # The package's own test, run by autopkgtest against the installed package
    # (-B: nothing built), from the tree as a fresh clone has it, as the
    # documentation runs it.
    copy_tree "$IN/src"
    # (No Python bytecode caches: the listing after the purge must equal the one before.)
    inroot env PYTHONDONTWRITEBYTECODE=1 autopkgtest -B "$IN/src" -- null || fail "the regression suite fails against the package (autopkgtest)"
    echo "the regression suite passes against the installed package"
    purge_and_check "$before"
}

# The commit of the previous release and its package, built once and cached.
previous_commit() {
    if [ -n "${SNOWFLAKE_DEB_PREVIOUS:-}" ]; then
        git -C "$ROOT" rev-parse --verify "$SNOWFLAKE_DEB_PREVIOUS^{commit}"
        return
    fi
    local first
    first=$(git -C "$ROOT" log --reverse --format=%H -S"default_version = '$EXTVERSION'" -- snowflake.control | head -n 1)
    [ -n "$first" ] || fail "no commit sets default_version '$EXTVERSION' (a clone with its history is needed)"
    git -C "$ROOT" rev-parse --verify "$first^" 2>/dev/null ||
        fail "the commit before $first is not in this clone (a shallow clone?): set SNOWFLAKE_DEB_PREVIOUS"
}

previous_deb() {
    local commit=$1 prev key dir src server
    prev=$(semver "$(git -C "$ROOT" show "$commit:snowflake.control" | control_version)")
    server=$(dpkg-query --admindir="$R/var/lib/dpkg" -W -f '${Version}' "postgresql-$V")
    key=$( { echo "$commit $V $server"; cd "$ROOT" && find debian -type f ! -name changelog | sort | xargs sha256sum; } |
        sha256sum | cut -c1-16)
    dir=$CACHE/pg$V/$key
    if ! ls "$dir/${PKG}_$prev-1_"*.deb >/dev/null 2>&1; then
        echo "building $PKG $prev-1 from $(git -C "$ROOT" rev-parse --short "$commit") (cached in $dir)" >&2
        src=$IN/previous/src
        mkdir -p "$M$src"
        git -C "$ROOT" archive "$commit" | tar -x -C "$M$src"
        rm -rf "$M$src/debian"
        cp -r "$ROOT/debian" "$M$src/debian"
        cat >"$M$src/debian/changelog" <<EOF
pg-snowflake ($prev-1) unstable; urgency=medium

  * Release $prev, packaged with the Debian packaging of a later release, for
    the package tests to upgrade from.

 -- $(dpkg-parsechangelog -l "$ROOT/debian/changelog" -SMaintainer)  $(date -R)
EOF
        build_debs "$src" >&2
        rm -rf "$CACHE/pg$V"
        mkdir -p "$dir.new"
        cp "$M$src"/../*.deb "$dir.new/"
        mv "$dir.new" "$dir"
    fi
    ls "$dir/${PKG}_$prev-1_"*.deb
}

# debian_cluster MAJOR NAME PORT IDENTITY: a cluster made the Debian way
# (pg_createcluster), preloading the library through conf.d/snowflake.conf
# with the identity settings IDENTITY (lines); started.
debian_cluster() {
    local v=$1 name=$2 port=$3 identity=$4
    inroot pg_createcluster "$v" "$name" -p "$port" -- --no-sync >/dev/null
    printf "shared_preload_libraries = 'snowflake'\n%s\n" "$identity" >"$M/etc/postgresql/$v/$name/conf.d/snowflake.conf"
    sockets_only "$v" "$name"
    inroot pg_ctlcluster "$v" "$name" start
}

# Sockets only, in the overlay's own /run/postgresql: nothing on the network.
sockets_only() { echo "listen_addresses = ''" >"$M/etc/postgresql/$1/$2/conf.d/test-sockets-only.conf"; }

# qp PORT MAJOR SQL: psql on that port with that major's client.
qp() { inroot runuser -u postgres -- "/usr/lib/postgresql/$2/bin/psql" -X -q -At -v ON_ERROR_STOP=1 -p "$1" -d postgres -c "$3"; }

step_upgrade() {
    local cur prev_deb commit prev port=5432 before
    cur=$(current_deb)
    commit=$(previous_commit)
    prev_deb=$(previous_deb "$commit")
    local prev_ver
    prev_ver=$(dpkg-deb -f "$prev_deb" Version)
    dpkg --compare-versions "$prev_ver" lt "$DEBVERSION" || fail "the previous package $prev_ver is not older than $DEBVERSION"
    local prev_ext
    prev_ext=$(git -C "$ROOT" show "$commit:snowflake.control" | control_version)
    echo "upgrading from $PKG $prev_ver (extension $prev_ext, commit $(git -C "$ROOT" rev-parse --short "$commit")) to $DEBVERSION (extension $EXTVERSION)"

    assert_clean "before the install"
    mkdir -p "$M$IN/previous-debs" "$M$IN/debs"
    cp "$prev_deb" "$M$IN/previous-debs/"
    cp "$cur" "$M$IN/debs/"
    chmod -R a+rX "$M$IN"
    before=$WORK/before-upgrade.list
    tree_listing >"$before"
    apt_install "$IN/previous-debs/$(basename "$prev_deb")"
    [ "$(installed_version)" = "ii $prev_ver" ] || fail "$PKG $prev_ver is not installed: $(installed_version)"

    # A cluster as Debian makes one, the library preloaded through conf.d.
    debian_cluster "$V" main "$port" "snowflake.worker_id = 7"
    q() { qp "$port" "$V" "$1"; }
    ids() { q "INSERT INTO ids (batch, ext) SELECT $1, extversion FROM pg_extension, generate_series(1, 1000) WHERE extname = 'snowflake'"; }
    q "CREATE EXTENSION snowflake"
    [ "$(q "SELECT extversion FROM pg_extension WHERE extname = 'snowflake'")" = "$prev_ext" ] ||
        fail "CREATE EXTENSION did not make version $prev_ext"
    q "CREATE TABLE ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), batch int NOT NULL, ext text NOT NULL)"
    ids 1

    apt_install "$IN/debs/$(basename "$cur")"
    [ "$(installed_version)" = "ii $DEBVERSION" ] || fail "$PKG was not upgraded to $DEBVERSION: $(installed_version)"
    echo "package upgraded: $prev_ver -> $DEBVERSION"
    ids 2    # the old library still runs: the server has not restarted
    inroot pg_ctlcluster "$V" main restart
    ids 3    # the new library, the extension's objects still at $prev_ext
    q "ALTER EXTENSION snowflake UPDATE"
    [ "$(q "SELECT extversion FROM pg_extension WHERE extname = 'snowflake'")" = "$EXTVERSION" ] ||
        fail "ALTER EXTENSION snowflake UPDATE did not reach $EXTVERSION"
    echo "ALTER EXTENSION snowflake UPDATE: $prev_ext -> $EXTVERSION"
    ids 4

    # Each batch above every id made before it, and all of them there.
    q "SELECT batch, ext, count(*), min(id), max(id) FROM ids GROUP BY batch, ext ORDER BY batch" |
        sed 's/^/  batch|extension|ids|min|max: /'
    [ "$(q "SELECT count(DISTINCT id) || ' ' || count(DISTINCT batch) FROM ids")" = "4000 4" ] ||
        fail "not 4000 distinct ids in 4 batches"
    [ "$(q "SELECT count(*) FROM (SELECT min(id) AS lo, max(max(id)) OVER (ORDER BY batch ROWS BETWEEN
            UNBOUNDED PRECEDING AND 1 PRECEDING) AS before FROM ids GROUP BY batch) b WHERE lo <= before")" = 0 ] ||
        fail "a batch has an id not above every id of the batches before it"
    echo "ids increase across the package upgrade, the restart and the extension update"

    # Removed under the running server: the package warns, and a new session's
    # snowflake function fails (docs/operations.md, "Removing the library").
    local out err
    out=$(inroot apt-get remove -y -q "$PKG" 2>&1) || fail "apt-get remove failed: $out"
    grep -q "PostgreSQL $V server .* -D /var/lib/postgresql/$V/main .*has snowflake loaded" <<<"$out" ||
        fail "apt-get remove under the running cluster that has the library loaded does not warn: $out"
    echo "apt-get remove warns: $(echo "$out" | grep -m1 "/var/lib/postgresql/$V/main .*has snowflake loaded")"
    if err=$(q "SELECT (snowflake_parse(1)).worker_id" 2>&1); then
        fail "a new session decodes an id with the library's file removed"
    fi
    grep -Eq 'could not access file "(\$libdir/)?snowflake": No such file or directory' <<<"$err" ||
        fail "a new session's snowflake function fails otherwise than the documentation says: $err"
    echo "then a new session's snowflake function fails: $err"
    # Installed again, the file is back and new sessions decode.
    apt_install "$IN/debs/$(basename "$cur")"
    [ "$(q "SELECT (snowflake_parse(1)).sequence")" = 1 ] || fail "no decoding after the package is installed again"
    echo "installed again: new sessions decode"

    inroot pg_ctlcluster "$V" main stop
    inroot pg_dropcluster "$V" main
    purge_and_check "$before"
}

# upgraded_ids PORT WORKER OLD_MAX WHAT CLUSTER: 1000 ids on the upgraded
# cluster (19), all under datacenter 3, worker WORKER, above OLD_MAX; and the
# pg_upgrade marker gone after the first start.
upgraded_ids() {
    local port=$1 worker=$2 old_max=$3 what=$4 cluster=$5 got
    qp "$port" 19 "INSERT INTO ids (batch) SELECT 2 FROM generate_series(1, 1000)"
    got=$(qp "$port" 19 "SELECT count(*), min(id) > $old_max, count(*) FILTER (WHERE (p.datacenter_id, p.worker_id) <> (3, $worker))
        FROM ids, LATERAL snowflake_parse(id) p WHERE batch = 2")
    [ "$got" = "1000|t|0" ] || fail "$what: the new ids (count|all above the old ones|under another identity) are $got, not 1000|t|0"
    echo "$what: 1000 new ids on 19, all above the old cluster's $old_max, all datacenter 3 worker $worker"
    [ ! -e "$M/var/lib/postgresql/19/$cluster/snowflake.pg_upgrade" ] ||
        fail "$what: snowflake.pg_upgrade is left after the first start"
}

# make_ids PORT: the table of the old cluster (18) and 1000 ids in it;
# prints the largest.
make_ids() {
    qp "$1" 18 "CREATE EXTENSION snowflake"
    qp "$1" 18 "CREATE TABLE ids (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), batch int NOT NULL)"
    qp "$1" 18 "INSERT INTO ids (batch) SELECT 1 FROM generate_series(1, 1000)"
    qp "$1" 18 "SELECT max(id) FROM ids"
}

step_major() {
    local cur from_deb before hook out old_max log c
    [ "$V" = 19 ] || fail "the major step upgrades 18 to 19 in the package root of 19"
    cur=$(current_deb)
    from_deb=$(ls "$WORK"/debs/postgresql-18-snowflake_*.deb 2>/dev/null) ||
        fail "no postgresql-18-snowflake in $WORK/debs: run the build step first"
    assert_clean "before the install"
    mkdir -p "$M$IN/debs"
    cp "$cur" "$from_deb" "$M$IN/debs/"
    chmod -R a+rX "$M$IN"
    before=$WORK/before-major.list
    tree_listing >"$before"
    apt_install "$IN/debs/$(basename "$from_deb")"
    apt_install "$IN/debs/$(basename "$cur")"
    hook=/etc/postgresql-common/pg_upgradecluster.d/snowflake-19
    [ -x "$M$hook" ] || fail "$PKG installs no executable $hook"

    # (1) pg_upgradecluster.
    debian_cluster 18 main 5432 $'snowflake.datacenter_id = 3\nsnowflake.worker_id = 7'
    old_max=$(make_ids 5432)
    out=$(inroot pg_upgradecluster -v 19 --method=upgrade --no-start 18 main 2>&1) || fail "pg_upgradecluster failed: $out"
    echo "$out" | grep '^snowflake: ' | sed 's/^/  pg_upgradecluster, the hook: /'
    cmp "$M/etc/postgresql/18/main/conf.d/snowflake.conf" "$M/etc/postgresql/19/main/conf.d/snowflake.conf" ||
        fail "pg_upgradecluster: the new cluster has not the old conf.d/snowflake.conf"
    cmp "$M/var/lib/postgresql/18/main/snowflake.state" "$M/var/lib/postgresql/19/main/snowflake.state" ||
        fail "pg_upgradecluster: the new cluster has not the old snowflake.state"
    sockets_only 19 main
    inroot pg_ctlcluster 19 main start
    upgraded_ids 5432 7 "$old_max" pg_upgradecluster main

    # (2) pg_upgrade by hand: the new cluster given the old settings, the
    # old snowflake.state forgotten at first.
    debian_cluster 18 hand 5433 $'snowflake.datacenter_id = 3\nsnowflake.worker_id = 8'
    old_max=$(make_ids 5433)
    inroot pg_ctlcluster 18 hand stop
    inroot pg_createcluster 19 hand -p 5434 -- --no-sync >/dev/null
    cp -p "$M/etc/postgresql/18/hand/conf.d/snowflake.conf" "$M/etc/postgresql/19/hand/conf.d/"
    sockets_only 19 hand
    out=$(inroot runuser -u postgres -- sh -c "cd /tmp && /usr/lib/postgresql/19/bin/pg_upgrade \
        -b /usr/lib/postgresql/18/bin -B /usr/lib/postgresql/19/bin \
        -d /var/lib/postgresql/18/hand -D /var/lib/postgresql/19/hand \
        -o '-c config_file=/etc/postgresql/18/hand/postgresql.conf' \
        -O '-c config_file=/etc/postgresql/19/hand/postgresql.conf'" 2>&1) || fail "pg_upgrade failed: $out"
    if inroot pg_ctlcluster 19 hand start >/dev/null 2>&1; then
        fail "pg_upgrade: the new cluster starts without the old snowflake.state"
    fi
    log=$(cat "$M/var/log/postgresql/postgresql-19-hand.log")
    grep -q 'FATAL:  snowflake state file "snowflake.state" is missing after pg_upgrade' <<<"$log" ||
        fail "pg_upgrade: the refused start does not name snowflake.state: $log"
    echo "pg_upgrade: the first start without the old snowflake.state is refused, naming it"
    cp -p "$M/var/lib/postgresql/18/hand/snowflake.state" "$M/var/lib/postgresql/19/hand/"
    inroot pg_ctlcluster 19 hand start
    upgraded_ids 5434 8 "$old_max" pg_upgrade hand

    for c in "19 main" "19 hand" "18 main" "18 hand"; do
        # shellcheck disable=SC2086
        inroot pg_dropcluster --stop $c
    done
    inroot apt-get purge -y -q postgresql-18-snowflake
    purge_and_check "$before"
}

case $STEP in
    build) step_build ;;
    install) step_install ;;
    upgrade) step_upgrade ;;
    major) step_major ;;
    *) fail "unknown step (build, install, upgrade or major)" ;;
esac
