#!/bin/bash
# Runs each libFuzzer target for SECONDS from a small seed corpus written
# into WORK (corpora are not committed).  Exits non-zero if any target finds
# a crash, leak or invariant failure; the log and reproducer stay in
# WORK/<target>/ (reproduce with ./<target> WORK/<target>/crash-...).
# Usage: run_fuzzers.sh SECONDS WORK TARGET...   (WORK "": a temporary
# directory, removed if nothing was found)
set -u
seconds=$1
work=$2
shift 2
cd "$(dirname "$0")"
temporary=0
if [ -z "$work" ]; then
    work=$(mktemp -d /tmp/snowflake-fuzz.XXXXXX)
    temporary=1
fi

seed() {  # seed TARGET NAME CONTENT (printf format)
    mkdir -p "$work/$1/corpus"
    printf -- "$3" >"$work/$1/corpus/$2"
}

seed fuzz_codec zero '0'
seed fuzz_codec base62 'AzL8n0Y58m7'
seed fuzz_codec hex '0ca2b3f3c6c41000'
seed fuzz_codec base32 '0CNHDPZ6H2KG0'
seed fuzz_codec serial '\x00\x0c\xa2\xb3\xf3\xc6\xc4\x10\x00\x00\x00\x00\x00\x00\x00\x00\x012017092013430884917250000'
seed fuzz_epoch int '1288834974657'
seed fuzz_epoch neg '-9223372036854775808'
seed fuzz_epoch iso '2010-11-04T01:42:54.657Z'
seed fuzz_epoch zone ' 2020-02-29 23:59:59.5 +05:30 '
seed fuzz_state_record body 'snowflake-state 1\nmark_unix_ms 1505914988849\nepoch_ms 1288834974657\ndatacenter_bits 5\nworker_bits 5\nsequence_bits 12\ndatacenter_id 17\nworker_id 25\n'
seed fuzz_state_record claim 'snowflake-state 2\nmark_unix_ms 1505914988849\nepoch_ms 1288834974657\ndatacenter_bits 5\nworker_bits 5\nsequence_bits 12\ndatacenter_id 3\nworker_id 7\nregistry_node_key 7312345678901234567:db-1:5432\n'
seed fuzz_generator ops '\x05\x05\x0c\x00\x01\x02\x00\x10\x00\x03\x00\x04\x00\x01\x04\x06\x00\x0e\x00\x0f\x10\x07\x20'
seed fuzz_generator borrow '\x05\x05\x0c\x01\x01\x02\x03\x02\x00\x10\x00\x02\x00\x06\x00\x80\x00\x00\x40\x00\x00\x06\x00\x02\x00'

status=0
for t in "$@"; do
    dir="$work/$t"
    mkdir -p "$dir/corpus"
    echo "== $t: ${seconds}s, corpus $dir/corpus"
    if ! ./"$t" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
            -artifact_prefix="$dir/" "$dir/corpus" >"$dir/log" 2>&1; then
        echo "FAIL: $t (log and reproducer in $dir)"
        tail -n 30 "$dir/log"
        status=1
    fi
    grep -E '^stat::number_of_executed_units|^#[0-9]+[[:space:]]+DONE' "$dir/log" | tail -n 2
done
if [ $status -eq 0 ]; then
    echo "fuzz: all targets ran ${seconds}s without a crash"
    if [ $temporary = 1 ]; then rm -rf "$work"; fi
fi
exit $status
