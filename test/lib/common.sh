# Shared helpers for the shell test scripts and the demo (source, don't run).
#
# PostgreSQL refuses to run as root, so servers run as the postgres OS user,
# from directories that user owns, each on its own port and socket directory.

PG_CONFIG=${PG_CONFIG:-pg_config}
PG_MAJOR=${PG_MAJOR:-15}

# Installs everything the demo and the tests need (Debian 12, as root).
sf_install_deps() {
    if [ "${SNOWFLAKE_SKIP_DEPS:-0}" = 1 ]; then return 0; fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends \
        make g++ clang-14 llvm-14 libclang-rt-14-dev rsync valgrind \
        "postgresql-$PG_MAJOR" "postgresql-server-dev-$PG_MAJOR" postgresql-contrib \
        libpqxx-dev libgtest-dev libipc-run-perl faketime procps >/dev/null
    # Debian's postgresql package may start a cluster of its own; our servers
    # use their own ports, so it is left alone.
}

sf_bindir() { "$PG_CONFIG" --bindir; }

as_postgres() { runuser -u postgres -- "$@"; }

# sf_copy_tree SRC DST: a copy of the source tree the postgres user can read
# and write (the checkout may live where postgres cannot read).
sf_copy_tree() {
    local src=$1 dst=$2
    rm -rf "$dst"
    mkdir -p "$dst"
    if [ -d "$src/.git" ] && command -v git >/dev/null; then
        # Exactly the tracked and not-ignored files: no stale build outputs.
        (cd "$src" && git ls-files -z --cached --others --exclude-standard) |
            rsync -a --from0 --files-from=- "$src"/ "$dst"/
    else
        rsync -a --exclude .git --exclude '*.o' --exclude '*.bc' --exclude '*.so' \
            --exclude 'tmp_check*' --exclude results "$src"/ "$dst"/
    fi
    chown -R postgres: "$dst"
}

# sf_server_init DIR PORT [postgresql.conf lines...]: a fresh cluster in DIR/data
# listening only on the unix socket DIR.
sf_server_init() {
    local dir=$1 port=$2
    shift 2
    sf_server_stop "$dir" 2>/dev/null || true
    rm -rf "$dir"
    install -d -o postgres -m 0700 "$dir"
    as_postgres "$(sf_bindir)/initdb" -D "$dir/data" -A trust -U postgres --no-sync >/dev/null
    {
        echo "port = $port"
        echo "unix_socket_directories = '$dir'"
        echo "listen_addresses = ''"
        echo "fsync = off"
        for line in "$@"; do echo "$line"; done
    } >>"$dir/data/postgresql.conf"
}

sf_server_start() {
    as_postgres "$(sf_bindir)/pg_ctl" -D "$1/data" -l "$1/server.log" -w -t 60 start >/dev/null
}

sf_server_stop() {
    [ -f "$1/data/postmaster.pid" ] || return 0
    as_postgres "$(sf_bindir)/pg_ctl" -D "$1/data" -m fast -w -t 60 stop >/dev/null
}

# sf_psql DIR [psql args...]
sf_psql() {
    local dir=$1
    shift
    local port
    port=$(sed -n 's/^port = //p' "$dir/data/postgresql.conf" | tail -1)
    as_postgres psql -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U postgres "$@"
}
