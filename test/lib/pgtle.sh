# shellcheck shell=bash
# pg_tle (Trusted Language Extensions, as managed services offer them), built
# from its source tarball for the SQL edition's suite
# (test/scripts/sql_edition.sh).  Source, don't run.
#
# The suite's managed server must not have the C extension's files: on a CI
# machine the PostgreSQL under test has snowflake installed by then.  So
# pg_tle goes into a copy of that PostgreSQL installation, made here without
# snowflake's files; the managed server runs from the copy (a relocated copy
# works: Debian's binaries find their files relative to their own place).
#
#   sf_pgtle_tarball CHECKOUT MAJOR  -> the pg_tle source for that PostgreSQL
#                                   major (sf_pgtle_glob; thirdparty.sh's
#                                   lookup), or a message and non-zero
#   sf_pgtle_supports MAJOR      0 if a pg_tle source here builds for that major
#   sf_pgtle_why_not MAJOR       why not, in a line
#   sf_pgtle_tree DEST TARBALL   copies the installation of PG_CONFIG to DEST
#                                (its layout kept below DEST), removes
#                                snowflake's files from the copy, builds and
#                                installs pg_tle into it; prints the copy's bin
#                                directory on the last line.  As root: the
#                                copy belongs to postgres, which builds.
#
# Building needs, besides the PostgreSQL headers, gcc, make, flex, bison and
# libkrb5-dev (pg_tle's README; test/lib/common.sh installs them).

. "$(dirname "${BASH_SOURCE[0]}")/thirdparty.sh"

# Which pg_tle for which major.  The release 1.5.2 wherever it builds (12 to
# 17, its README): managed services run releases.  On 18 and 19, where 1.5.2
# does not build, pg_tle's source from commit 2f4b7b3, its 1.5.3 not yet
# released (../shared/thirdparty/README.md).
sf_pgtle_glob() {
    case $1 in
        12 | 13 | 14 | 15 | 16 | 17) echo 'pg_tle-1.5.2.tar.gz' ;;
        18 | 19) echo 'pg_tle-1.5.3-dev-*.tar.gz' ;;
        *) return 1 ;;
    esac
}

sf_pgtle_tarball() { sf_thirdparty_tarball "$1" "$(sf_pgtle_glob "$2")" "pg_tle (for PostgreSQL $2)"; }

sf_pgtle_supports() { sf_pgtle_glob "$1" >/dev/null; }

sf_pgtle_why_not() { echo "no pg_tle source here builds on PostgreSQL $1 (1.5.2: 12 to 17; 1.5.3-dev: 18 and 19)"; }

sf_pgtle_tree() {
    local dest=$1 tarball=$2 pgc bindir prefix libtree sharedir incdir v start=$SECONDS
    pgc=$(sf_pg_config)
    bindir=$("$pgc" --bindir)
    sharedir=$("$pgc" --sharedir)
    incdir=$("$pgc" --includedir)
    libtree=$(dirname "$bindir")
    v=$(basename "$libtree")
    # What the installation's paths have before /usr/lib/postgresql/V/bin:
    # "" for Debian's own, /opt/... for a relocated copy.
    prefix=${bindir%/usr/lib/postgresql/"$v"/bin}
    [ "$prefix" != "$bindir" ] || { echo "unexpected PostgreSQL layout: $bindir"; return 1; }
    rm -rf "$dest"
    mkdir -p "$dest$(dirname "${libtree#"$prefix"}")" "$dest$(dirname "${sharedir#"$prefix"}")" \
        "$dest$(dirname "${incdir#"$prefix"}")"
    cp -a "$libtree" "$dest${libtree#"$prefix"}"
    cp -a "$sharedir" "$dest${sharedir#"$prefix"}"
    cp -a "$incdir" "$dest${incdir#"$prefix"}"
    rm -rf "$dest${libtree#"$prefix"}"/lib/snowflake.so "$dest${libtree#"$prefix"}"/lib/bitcode/snowflake* \
        "$dest${sharedir#"$prefix"}"/extension/snowflake[.-]*
    local build=$dest/build/pg_tle
    mkdir -p "$build"
    tar -xzf "$tarball" -C "$build" --strip-components=1 || return 1
    chown -R postgres: "$dest"
    local newpgc=$dest${bindir#"$prefix"}/pg_config
    as_postgres sh -c "cd '$build' && make -j2 with_llvm=no PG_CONFIG='$newpgc' >make.log 2>&1 \
        || { tail -n 40 make.log; exit 1; }
        make install with_llvm=no PG_CONFIG='$newpgc' >install.log 2>&1 \
        || { tail -n 20 install.log; exit 1; }" || return 1
    echo "pg_tle from $(basename "$tarball") (sha256 $(sha256sum "$tarball" | cut -c1-16)...)" \
        "built into a copy of PostgreSQL $("$newpgc" --version | sed 's/^PostgreSQL //')" \
        "without snowflake's files, in $((SECONDS - start)) s"
    echo "$dest${bindir#"$prefix"}"
}
