# shellcheck shell=bash
# Where the test suite finds third-party sources that no package registry here
# has (Citus, pg_tle): ../shared/thirdparty next to the checkout (see the
# README there).  Nothing from them is copied into this project; they only
# build the servers some suites run.  Source, don't run.
#
#   sf_thirdparty_dirs CHECKOUT              the directories looked in, one a line
#   sf_thirdparty_tarball CHECKOUT GLOB WHAT -> path of the newest tarball that
#                                            matches GLOB, or a message naming
#                                            WHAT on stderr and non-zero
#
# SNOWFLAKE_THIRDPARTY_DIR overrides where the tarballs are looked for.

# Where the tarballs may be: SNOWFLAKE_THIRDPARTY_DIR; ../shared/thirdparty
# next to the checkout; and, for a clone made from a local checkout (a clean
# clone for CI), ../shared/thirdparty next to the checkout it was cloned
# from.
sf_thirdparty_dirs() {
    local checkout=$1 origin
    if [ -n "${SNOWFLAKE_THIRDPARTY_DIR:-}" ]; then
        echo "$SNOWFLAKE_THIRDPARTY_DIR"
        return
    fi
    echo "$checkout/../shared/thirdparty"
    origin=$(git -C "$checkout" config --get remote.origin.url 2>/dev/null || true)
    [ -n "$origin" ] && [ -d "$origin" ] && echo "$origin/../shared/thirdparty"
}

sf_thirdparty_tarball() {
    local checkout=$1 glob=$2 what=$3 dir t
    while read -r dir; do
        # shellcheck disable=SC2086  # the glob is meant to expand
        t=$(printf '%s\n' "$dir"/$glob | sort -V | tail -n 1)
        if [ -f "$t" ]; then
            readlink -f "$t"
            return 0
        fi
    done < <(sf_thirdparty_dirs "$checkout")
    echo "the $what source is missing: no $glob in $(sf_thirdparty_dirs "$checkout" | tr '\n' ' ')" >&2
    echo "(the suite builds its servers from ../shared/thirdparty next to the" \
        "checkout; set SNOWFLAKE_THIRDPARTY_DIR to use another directory)" >&2
    return 1
}
