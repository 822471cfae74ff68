#!/usr/bin/env bash
# The demo, on a fresh Debian 12 machine, as root:
#
#   bash test/demo.sh
#
# Installs only what the demo needs (a compiler, PostgreSQL 15 and its
# headers: not the test toolchain), builds the extension and installs it into
# the system's PostgreSQL 15 (make install; where the package
# postgresql-15-snowflake is installed, it uses that instead), starts a throwaway PostgreSQL with
# snowflake preloaded, creates a table whose id is DEFAULT snowflake_nextval(),
# inserts rows, shows them decoded, stops the server.  Safe to rerun.  The
# packages and the installed extension stay: run it on a machine you can
# throw away.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/test/lib/common.sh"

DIR=/var/tmp/snowflake-demo
PORT=${SF_DEMO_PORT:-54399}

echo "== installing dependencies (apt-get)"
sf_install_deps demo

# A packaged snowflake (postgresql-15-snowflake) is used as it is: make
# install would overwrite the package's files (dpkg -V would report them).
if pkg=$(dpkg -S /usr/lib/postgresql/15/lib/snowflake.so 2>/dev/null); then
    echo "== ${pkg%%:*} is installed: the demo runs on it (make install would overwrite its files)"
else
    echo "== building, and installing into PostgreSQL 15 (make install)"
    sf_copy_tree "$ROOT" "$DIR.build"
    make -C "$DIR.build" -j2 >/dev/null
    make -C "$DIR.build" install >/dev/null
fi

echo "== starting a throwaway server in $DIR (port $PORT)"
trap 'sf_server_stop "$DIR" || true' EXIT
sf_server_init "$DIR" "$PORT" \
    "shared_preload_libraries = 'snowflake'" \
    "snowflake.datacenter_id = 1" \
    "snowflake.worker_id = 7"
sf_server_start "$DIR"

sf_psql "$DIR" -d postgres -e <<'SQL'
CREATE EXTENSION snowflake;
CREATE TABLE orders (
    id      bigint PRIMARY KEY DEFAULT snowflake_nextval(),
    item    text NOT NULL
);
INSERT INTO orders (item) VALUES ('tea'), ('coffee'), ('cake');
INSERT INTO orders (item) SELECT 'bulk ' || g FROM generate_series(1, 5) g;
SET TimeZone = 'UTC';
SELECT o.id, o.item, p.ts, p.datacenter_id, p.worker_id, p.sequence
FROM orders o, LATERAL snowflake_parse(o.id) p
ORDER BY o.id;
SELECT datacenter_id, worker_id, ids_issued, durable_mark, lifetime_end FROM snowflake_status;
SQL

echo "== stopping the server"
sf_server_stop "$DIR"
trap - EXIT
echo "demo done"
