#!/usr/bin/env bash
# Real application clients against a server with the extension (issue 13):
# each creates a table with DEFAULT snowflake_nextval(), inserts through the
# client's normal API, reads the generated id back and round-trips it
# exactly, ids above 2^53 included.
#
#   bash test/scripts/clients.sh sqlalchemy WORKDIR   SQLAlchemy 1.4 + psycopg2 (Debian packages)
#   bash test/scripts/clients.sh django WORKDIR       Django 5.2 + psycopg2 (Debian packages), the
#                                                     model pattern of docs/adopting.md
#   bash test/scripts/clients.sh node WORKDIR         node-postgres (npm "pg", test/clients/node)
#   bash test/scripts/clients.sh libpqxx WORKDIR      test/client/sf_batch: snowflake_generate(n)
#                                                     batching of parent/child inserts
#
# As root on Debian 12: installs what the client needs if it is missing
# (python3-sqlalchemy python3-psycopg2; nodejs npm, then `npm ci` in a copy
# of test/clients/node under WORKDIR, never in the checkout), starts a
# throwaway server as the postgres user on its own port and socket, runs the
# client, stops the server.  Safe to rerun.  SNOWFLAKE_SKIP_DEPS=1 skips the
# installs.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/../lib/common.sh"

CLIENT=${1:?usage: clients.sh sqlalchemy|django|node|libpqxx [WORKDIR]}
DIR=${2:-/var/tmp/snowflake-clients-$CLIENT}
WORKER_ID=7
# Debian's Python, whose packages are the ones installed below (a python3
# earlier on PATH, pyenv's say, would not see them).
PY=/usr/bin/python3
case "$CLIENT" in
    sqlalchemy) PORT=${SF_PORT:-54341} ;;
    node) PORT=${SF_PORT:-54342} ;;
    libpqxx) PORT=${SF_PORT:-54343} ;;
    django) PORT=${SF_PORT:-54344} ;;
    *) echo "clients.sh: unknown client '$CLIENT' (sqlalchemy, django, node or libpqxx)" >&2; exit 2 ;;
esac

apt_install() {
    [ "${SNOWFLAKE_SKIP_DEPS:-0}" = 1 ] && return 0
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# --- what the client needs
case "$CLIENT" in
    sqlalchemy)
        "$PY" -c 'import sqlalchemy, psycopg2' 2>/dev/null || apt_install python3 python3-sqlalchemy python3-psycopg2
        "$PY" -c 'import sqlalchemy, psycopg2; print("SQLAlchemy", sqlalchemy.__version__, "psycopg2", psycopg2.__version__)'
        ;;
    django)
        "$PY" -c 'import django, psycopg2' 2>/dev/null || apt_install python3 python3-django python3-psycopg2
        ;;
    node)
        # Debian's nodejs and npm, unless the machine already has a node with npm.
        if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
            apt_install nodejs npm
        fi
        echo "node $(node --version), npm $(npm --version)"
        rm -rf "$DIR/node"
        mkdir -p "$DIR/node"
        cp "$ROOT/test/clients/node/package.json" "$ROOT/test/clients/node/package-lock.json" \
            "$ROOT/test/clients/node/test_pg.js" "$DIR/node/"
        (cd "$DIR/node" && npm ci --no-audit --no-fund --loglevel=error)
        node -e 'console.log("pg", require(process.argv[1] + "/node_modules/pg/package.json").version)' "$DIR/node"
        ;;
    libpqxx)
        [ -x "$ROOT/test/client/sf_batch" ] || make -s -C "$ROOT/test/client" sf_batch
        ;;
esac

# --- a throwaway server
SERVER=$DIR/server
trap 'sf_server_stop "$SERVER" || true' EXIT
sf_server_init "$SERVER" "$PORT" "shared_preload_libraries = 'snowflake'" \
    "snowflake.datacenter_id = 1" "snowflake.worker_id = $WORKER_ID"
sf_server_start "$SERVER"
sf_psql "$SERVER" -d postgres -c "CREATE DATABASE clients"
sf_psql "$SERVER" -d clients -c "CREATE EXTENSION snowflake"

# --- the client
case "$CLIENT" in
    sqlalchemy)
        SF_DSN="postgresql+psycopg2://postgres@/clients?host=$SERVER&port=$PORT" SF_WORKER_ID=$WORKER_ID \
            "$PY" "$ROOT/test/clients/python/test_sqlalchemy.py"
        ;;
    django)
        SF_PGHOST=$SERVER SF_PGPORT=$PORT SF_PGDATABASE=clients SF_WORKER_ID=$WORKER_ID \
            "$PY" "$ROOT/test/clients/python/test_django.py"
        ;;
    node)
        (cd "$DIR/node" && PGHOST=$SERVER PGPORT=$PORT PGUSER=postgres PGDATABASE=clients \
            node --test --test-reporter=spec test_pg.js)
        ;;
    libpqxx)
        "$ROOT/test/client/sf_batch" --conn "host=$SERVER port=$PORT user=postgres dbname=clients" \
            --orders 2000 --lines 5 --rounds 10
        ;;
esac
