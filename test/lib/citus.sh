# shellcheck shell=bash
# Citus, built from its source tarball into a Debian root of test/lib/pgroot.sh,
# for the Citus suite (source, don't run; needs pgroot.sh sourced first).
# No package registry here has Citus: its source lies next to the checkout,
# in ../shared/thirdparty (see the README there).  Nothing from it is copied
# into this project; it only builds the servers the suite runs.
#
#   sf_citus_tarball CHECKOUT     -> path of the newest citus-*.tar.gz, or a
#                                    message on stderr and non-zero
#                                    (sf_citus_dirs: where it looks; the
#                                    lookup is thirdparty.sh's)
#   sf_citus_ensure ROOT V TARBALL  builds and installs Citus into the root's
#                                   PostgreSQL V (first use), or finds it
#                                   there; 0 if usable
#
# Built without the LLVM bitcode for JIT inlining (with_llvm=no): the tests
# do not need it, and it would double the build time.
#
# The build is cached in the root (which is cached under /var/tmp itself): a
# stamp file records the tarball's sha256 and the PostgreSQL it was built
# for, so a new tarball or a new PostgreSQL minor rebuilds it.
# SNOWFLAKE_THIRDPARTY_DIR overrides where the tarball is looked for.

# What building Citus needs inside the root besides the PostgreSQL headers.
SF_CITUS_BUILD_PACKAGES="gcc make libssl-dev libcurl4-openssl-dev liblz4-dev libzstd-dev libicu-dev"

# The tarball is found where every third-party source is (thirdparty.sh).
. "$(dirname "${BASH_SOURCE[0]}")/thirdparty.sh"

sf_citus_dirs() { sf_thirdparty_dirs "$1"; }

sf_citus_tarball() { sf_thirdparty_tarball "$1" 'citus-*.tar.gz' Citus; }

sf_citus_ensure() {
    local r=$1 v=$2 tarball=$3 sha pgver want stamp=$1/etc/snowflake-citus-pg$2 start=$SECONDS
    [ -f "$tarball" ] || { echo "no Citus tarball at $tarball"; return 1; }
    sha=$(sha256sum "$tarball" | cut -d' ' -f1)
    pgver=$(sf_root_run "$r" "/usr/lib/postgresql/$v/bin/pg_config" --version) || return 1
    want="$sha $(basename "$tarball") for $pgver; $SF_CITUS_BUILD_PACKAGES"
    if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] &&
        [ -f "$r/usr/lib/postgresql/$v/lib/citus.so" ]; then
        echo "Citus from $(basename "$tarball") (sha256 $sha) is already built for $pgver"
        return 0
    fi
    echo "== building Citus from $(basename "$tarball") (sha256 $sha) for $pgver"
    rm -f "$stamp"
    # shellcheck disable=SC2086
    sf_root_apt "$r" install -y --no-install-recommends $SF_CITUS_BUILD_PACKAGES ||
        { sf_root_apt "$r" update && sf_root_apt "$r" install -y --no-install-recommends \
            $SF_CITUS_BUILD_PACKAGES; } || return 1
    local b=/var/tmp/citus-build
    rm -rf "$r$b"
    mkdir -p "$r$b"
    tar -xzf "$tarball" -C "$r$b" --strip-components=1 || return 1
    sf_root_run "$r" sh -c "cd $b && ./configure PG_CONFIG=/usr/lib/postgresql/$v/bin/pg_config \
        >configure.log 2>&1 || { tail -n 30 configure.log; exit 1; }
        make -j2 with_llvm=no >make.log 2>&1 || { tail -n 60 make.log; exit 1; }
        make install with_llvm=no >install.log 2>&1 || { tail -n 30 install.log; exit 1; }" ||
        return 1
    rm -rf "$r$b"
    echo "$want" >"$stamp"
    echo "Citus built and installed in $((SECONDS - start)) s"
}
