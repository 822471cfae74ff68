#!/usr/bin/env bash
# The whole test suite, on a fresh Debian 12 machine, as root:
#
#   bash test/run-all.sh
#
# Installs what it needs, builds and installs the extension, then runs every
# suite from a copy of the tree owned by the postgres user.  Ends with one
# line "N passed, N failed" (suites) and exits non-zero if any failed.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/test/lib/common.sh"

WORK=${SNOWFLAKE_TEST_DIR:-/var/tmp/snowflake-test}
LOGS=$WORK/logs
passed=0
failed=0
failed_names=()

# run_suite NAME COMMAND...: runs a suite, shows its tail on failure.
run_suite() {
    local name=$1
    shift
    local log="$LOGS/$name.log"
    local start=$SECONDS
    printf '%-28s ' "$name"
    if "$@" >"$log" 2>&1; then
        passed=$((passed + 1))
        echo "ok ($((SECONDS - start)) s)"
    else
        failed=$((failed + 1))
        failed_names+=("$name")
        echo "FAILED ($((SECONDS - start)) s), last lines of $log:"
        tail -n 40 "$log" | sed 's/^/    /'
        # pg_regress leaves its diffs next to the tests.
        for d in "$WORK/src/regression.diffs"; do
            [ -f "$d" ] && head -n 80 "$d" | sed 's/^/    /'
        done
    fi
}

echo "== installing dependencies"
sf_install_deps || { echo "dependency installation failed"; echo "0 passed, 1 failed"; exit 1; }

echo "== building in $WORK/src"
mkdir -p "$WORK"
sf_copy_tree "$ROOT" "$WORK/src"
rm -rf "$LOGS"
mkdir -p "$LOGS"
chown postgres: "$WORK"

run_suite build-and-install bash -c "make -C '$WORK/src' -j2 && make -C '$WORK/src' install"
chown -R postgres: "$WORK/src"
run_suite unit-core as_postgres make -C "$WORK/src/test/unit" run
run_suite unit-core-sanitizers as_postgres make -C "$WORK/src/test/unit" sanitize
run_suite unit-core-tsan as_postgres make -C "$WORK/src/test/unit" tsan
run_suite unit-core-valgrind as_postgres make -C "$WORK/src/test/unit" valgrind
run_suite fuzz-20s-each as_postgres make -C "$WORK/src/test/fuzz" run SECONDS=20
run_suite regress-preloaded as_postgres make -C "$WORK/src" installcheck
run_suite regress-not-preloaded as_postgres make -C "$WORK/src" installcheck-nopreload
run_suite client-build as_postgres make -C "$WORK/src/test/client"
run_suite concurrency-2-databases bash "$WORK/src/test/scripts/concurrency.sh" "$WORK/concurrency"
run_suite client-sqlalchemy bash "$WORK/src/test/scripts/clients.sh" sqlalchemy "$WORK/clients-sqlalchemy"
run_suite client-node-pg bash "$WORK/src/test/scripts/clients.sh" node "$WORK/clients-node"
run_suite client-libpqxx-batch bash "$WORK/src/test/scripts/clients.sh" libpqxx "$WORK/clients-libpqxx"
run_suite bench-quick bash "$WORK/src/test/scripts/bench.sh" --quick "$WORK/bench"
run_suite load-and-crash bash "$WORK/src/test/scripts/load_crash.sh" --quick "$WORK/load"
run_suite tap as_postgres env PG_TEST_TIMEOUT_DEFAULT=120 make -C "$WORK/src" prove-installcheck

echo
[ "$failed" -gt 0 ] && echo "failed suites: ${failed_names[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
