#!/usr/bin/env bash
# 8 sessions, 4 in each of 2 databases of one server, take 100,000 ids each at
# the same time: all 800,000 must be distinct and every session's ids strictly
# increasing (the generator state is per server, not per database).
#
#   bash test/scripts/concurrency.sh WORKDIR      (as root; the server runs as postgres)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../lib/common.sh"

DIR=${1:-/var/tmp/snowflake-concurrency}
PORT=${SF_PORT:-54321}
CLIENT="$HERE/../client/sf_concurrency"

trap 'sf_server_stop "$DIR" || true' EXIT
sf_server_init "$DIR" "$PORT" "shared_preload_libraries = 'snowflake'" "snowflake.worker_id = 7" \
    "max_connections = 40"
sf_server_start "$DIR"
for db in db1 db2; do
    sf_psql "$DIR" -d postgres -c "CREATE DATABASE $db"
    sf_psql "$DIR" -d "$db" -c "CREATE EXTENSION snowflake"
done

as_postgres "$CLIENT" \
    --conn "host=$DIR port=$PORT user=postgres dbname=db1" \
    --conn "host=$DIR port=$PORT user=postgres dbname=db2" \
    --per-conn 4 --ids 100000 --batch 1000

sf_psql "$DIR" -d db1 -At -c "SELECT 'status: ids_issued=' || ids_issued || ' sequence_exhaustions=' || sequence_exhaustions || ' durable_writes=' || durable_writes FROM snowflake_status"
