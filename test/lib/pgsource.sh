# The source of the installed PostgreSQL server, from the distribution's
# source package, unpacked and cached (source, don't run): PostgreSQL's own
# regression tests, run against the installed server with and without
# snowflake (test/scripts/core_regress.sh).
#
#   sf_pgsrc_ensure MAJOR          -> the unpacked source tree's path
#   sf_pgsrc_report TREE MAJOR     says which version the tree holds
#   sf_pgsrc_modules TREE PG_CONFIG FILE.c...  -> a directory of .so built from it
#
# Debian's apt downloads the source package (deb-src entries made from the
# entries that ship the server, in an apt configuration of its own under
# SNOWFLAKE_PGSRC_DIR, default /var/tmp/snowflake-pgsrc, so the machine's apt
# lists are left alone).  The version wanted is the installed server's: the
# regression files, regress.so and the expected outputs belong to one minor
# release.  When the mirror no longer has that version's source (it has moved
# on to a newer minor release, or never kept it), the nearest version it has
# is taken instead -- older first -- and sf_pgsrc_report says so loudly:
# tests whose expected output changed between the two minor releases then
# fail with and without snowflake alike, and the comparison still holds.
# SNOWFLAKE_PGSRC_EXACT=1 refuses instead (the run fails, naming both
# versions; upgrading the server package to the mirror's version fixes it).
# A tree once unpacked stays cached, keyed by the installed package and
# version, so later runs download nothing (and keep the version they got).
#
# Needs root, apt and dpkg-source (Debian package dpkg-dev).

SF_PGSRC_DIR=${SNOWFLAKE_PGSRC_DIR:-/var/tmp/snowflake-pgsrc}

# The Debian source package and version of the installed server of MAJOR:
# "postgresql-15 15.20-0+deb12u1".
sf_pgsrc_installed() {
    local v=$1 out
    out=$(dpkg-query -W -f '${source:Package} ${source:Version} ${Status}\n' "postgresql-$v" 2>/dev/null)
    case $out in
        *" installed") echo "${out% install ok installed}" ;;
        *) echo "the Debian package postgresql-$v is not installed" >&2; return 1 ;;
    esac
}

# sf_pgsrc_apt apt-get|apt-cache ARGS...: apt with a configuration of our
# own under $SF_PGSRC_DIR/apt: its own source list, index lists and caches.
sf_pgsrc_apt() {
    local a=$SF_PGSRC_DIR/apt tool=$1
    shift
    "$tool" -q -o Dir::Etc::SourceList="$a/sources.list" -o Dir::Etc::SourceParts="$a/sources.list.d" \
        -o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache" \
        -o Acquire::Check-Valid-Until=false -o Acquire::Retries=3 "$@"
}

# The source versions of package $1 the mirror lists, in the order to try
# them when $2 (the installed one) cannot be had: $2 first, then older ones,
# newest first, then newer ones, oldest first.
sf_pgsrc_candidates() {
    local pkg=$1 want=$2 v older=() newer=()
    echo "$want"
    for v in $(sf_pgsrc_apt apt-cache showsrc "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | sort -u); do
        [ "$v" = "$want" ] && continue
        if dpkg --compare-versions "$v" lt "$want"; then older+=("$v"); else newer+=("$v"); fi
    done
    [ ${#older[@]} -gt 0 ] && printf '%s\n' "${older[@]}" | sort -r -V
    [ ${#newer[@]} -gt 0 ] && printf '%s\n' "${newer[@]}" | sort -V
    return 0
}

# sf_pgsrc_fetch PACKAGE VERSION DST: downloads and unpacks a source package
# into DST; prints the version it got.
sf_pgsrc_fetch() {
    local pkg=$1 ver=$2 dst=$3 a=$SF_PGSRC_DIR/apt tmp v
    rm -rf "$a/sources.list.d"
    mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/sources.list.d"
    # deb-src for every repository that ships the binary package (apt-cache
    # madison: "postgresql-15 | 15.20-0+deb12u1 | URI SUITE/COMPONENT ARCH Packages").
    apt-cache madison "$pkg" | awk -F' [|] ' '$3 ~ / Packages$/ {
            split($3, f, " "); n = split(f[2], sc, "/")
            comp = sc[n]; suite = f[2]; sub("/" comp "$", "", suite)
            print "deb-src " f[1] " " suite " " comp }' | sort -u >"$a/sources.list"
    if [ ! -s "$a/sources.list" ]; then
        echo "no apt repository ships $pkg (apt-cache madison $pkg)" >&2
        return 1
    fi
    {
        echo "== deb-src entries for $pkg:"
        cat "$a/sources.list"
        sf_pgsrc_apt apt-get update
    } >&2 || return 1
    for v in $(sf_pgsrc_candidates "$pkg" "$ver"); do
        if [ "$v" != "$ver" ] && [ "${SNOWFLAKE_PGSRC_EXACT:-0}" = 1 ]; then
            break
        fi
        tmp=$(mktemp -d "$SF_PGSRC_DIR/fetch.XXXXXX")
        # apt downloads as its own user where it can write.
        chown _apt "$tmp" 2>/dev/null || true
        if (cd "$tmp" && sf_pgsrc_apt apt-get source --download-only --only-source "$pkg=$v") >&2 &&
            dpkg-source --no-check -x "$tmp/${pkg}_${v#*:}.dsc" "$tmp/tree" >&2; then
            rm -rf "$dst"
            mv "$tmp/tree" "$dst"
            rm -rf "$tmp"
            echo "$v"
            return 0
        fi
        rm -rf "$tmp"
        echo "== could not download the source of $pkg $v" >&2
    done
    echo "the source of the installed server ($pkg $ver) could not be downloaded;" \
        "the mirror lists: $(sf_pgsrc_candidates "$pkg" "$ver" | tail -n +2 | tr '\n' ' ')" \
        "${SNOWFLAKE_PGSRC_EXACT:+(SNOWFLAKE_PGSRC_EXACT is set: only $ver will do)}" >&2
    return 1
}

# sf_pgsrc_ensure MAJOR: the unpacked source tree for the installed server
# of MAJOR (downloaded on first use), keyed by the installed version; the
# version of the source it holds is in its file .snowflake-source-version.
# Serialised with a lock, so that runs of several versions, or a rerun,
# never unpack into one directory at once.
sf_pgsrc_ensure() {
    local v=$1 pkgver pkg ver tree
    pkgver=$(sf_pgsrc_installed "$v") || return 1
    pkg=${pkgver% *}
    ver=${pkgver#* }
    tree=$SF_PGSRC_DIR/${pkg}_${ver#*:}
    mkdir -p "$SF_PGSRC_DIR"
    (
        flock 9
        if [ ! -f "$tree/.snowflake-source-version" ]; then
            # What an interrupted run left behind.
            rm -rf "$SF_PGSRC_DIR"/fetch.*
            echo "== fetching the source of $pkg $ver" >&2
            got=$(sf_pgsrc_fetch "$pkg" "$ver" "$tree") || exit 1
            echo "$got" >"$tree/.snowflake-source-version"
        fi
        chmod -R a+rX "$SF_PGSRC_DIR"
    ) 9>"$SF_PGSRC_DIR/lock" || return 1
    echo "$tree"
}

# sf_pgsrc_report TREE MAJOR: says which source the tree holds, next to the
# installed server's version; loudly when the two differ.
sf_pgsrc_report() {
    local tree=$1 v=$2 src inst
    src=$(cat "$tree/.snowflake-source-version")
    inst=$(sf_pgsrc_installed "$v")
    inst=${inst#* }
    if [ "$src" = "$inst" ]; then
        echo "source: postgresql-$v $src, the installed server's version"
    else
        echo "SOURCE VERSION DIFFERS: the installed server is postgresql-$v $inst, the mirror had"
        echo "  no source of it, so the tests come from postgresql-$v $src (the nearest it had)."
        echo "  Tests whose expected output changed between the two fail in both runs alike;"
        echo "  the comparison still holds.  SNOWFLAKE_PGSRC_EXACT=1 refuses instead."
    fi
}

# sf_pgsrc_modules TREE PG_CONFIG SOURCE.c...: builds shared libraries from
# C files of the source tree with PGXS against PG_CONFIG's server headers;
# prints the directory that holds them.  Cached next to the tree, keyed by
# the pg_config (path and version) and the files: built once.
sf_pgsrc_modules() {
    local tree=$1 pgc=$2 key dir
    shift 2
    key=$(printf '%s\n' "$pgc" "$("$pgc" --version)" "$@" | md5sum | cut -c1-10)
    dir=$tree.modules-$key
    (
        flock 9
        if [ ! -f "$dir/.snowflake-built" ]; then
            rm -rf "$dir"
            mkdir -p "$dir"
            names=()
            for f in "$@"; do
                cp "$tree/$f" "$dir/" || exit 1
                names+=("$(basename "$f" .c)")
            done
            # PGXS, without the LLVM bitcode: only the shared libraries.
            printf 'MODULES = %s\nPG_CONFIG = %s\nPGXS := $(shell $(PG_CONFIG) --pgxs)\ninclude $(PGXS)\n' \
                "${names[*]}" "$pgc" >"$dir/Makefile"
            make -C "$dir" -s with_llvm=no >&2 || exit 1
            touch "$dir/.snowflake-built"
        fi
        chmod -R a+rX "$dir"
    ) 9>"$SF_PGSRC_DIR/lock" || return 1
    echo "$dir"
}
