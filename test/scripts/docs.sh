#!/usr/bin/env bash
# Every SQL example of the user documentation (README.md and docs/*.md), run
# against fresh servers and compared with the output the page shows
# (test/scripts/docs_examples.py says how blocks are marked and compared).
#
#   bash test/scripts/docs.sh [WORKDIR] [FILE.md...]
#
# As root (the servers run as the postgres user) or as postgres, with the
# extension installed for the PostgreSQL of PG_CONFIG / PG_MAJOR.  Installs
# python3 if it is missing (SNOWFLAKE_SKIP_DEPS=1 skips that).  Ends with
# "N passed, N failed".
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../lib/common.sh"

DIR=${1:-/var/tmp/snowflake-docs}
shift || true
if ! command -v python3 >/dev/null && [ "${SNOWFLAKE_SKIP_DEPS:-0}" != 1 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends python3 >/dev/null
fi
exec python3 -u "$HERE/docs_examples.py" --work "$DIR" --bindir "$(sf_bindir)" \
    --port-base "${SF_PORT_BASE:-54600}" "$@"
