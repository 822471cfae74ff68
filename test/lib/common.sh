# Shared helpers for the shell test scripts and the demo (source, don't run).
#
# PostgreSQL refuses to run as root, so servers run as the postgres OS user,
# from directories that user owns, each on its own port and socket directory.

PG_MAJOR=${PG_MAJOR:-15}

# pg_config of the PostgreSQL under test (PG_CONFIG, else PG_MAJOR's).
# Debian installs each major under /usr/lib/postgresql/N.
sf_pg_config() {
    if [ -n "${PG_CONFIG:-}" ]; then
        echo "$PG_CONFIG"
    elif [ -x "/usr/lib/postgresql/$PG_MAJOR/bin/pg_config" ]; then
        echo "/usr/lib/postgresql/$PG_MAJOR/bin/pg_config"
    else
        echo pg_config
    fi
}

# What the demo needs: a compiler and Debian 12's PostgreSQL 15 with its
# headers (postgresql-server-dev-15 brings clang-14 and llvm-14 for the
# JIT bitcode that Debian's PGXS builds).
SF_DEMO_PACKAGES="make g++ rsync postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR"
# What the test suite needs on top: the test toolchain, debootstrap for the
# Debian roots of PostgreSQL 17 and 18 and the package roots
# (test/lib/pgroot.sh), dpkg-dev to unpack PostgreSQL's source package
# (test/lib/pgsource.sh), pgaudit for the tests beside other extensions,
# pg_buildext (postgresql-server-dev-all) for the check of debian/control, and
# flex, bison and libkrb5-dev to build pg_tle for the SQL edition's suite
# (test/lib/pgtle.sh).
SF_TEST_PACKAGES="clang-14 llvm-14 libclang-rt-14-dev valgrind postgresql-contrib libpqxx-dev
    libgtest-dev libipc-run-perl faketime procps git unzip debootstrap python3 gdb dpkg-dev
    postgresql-$PG_MAJOR-pgaudit postgresql-server-dev-all flex bison libkrb5-dev"

# sf_install_deps [demo]: installs what the tests (or only the demo) need,
# on Debian 12, as root.
sf_install_deps() {
    if [ "${SNOWFLAKE_SKIP_DEPS:-0}" = 1 ]; then return 0; fi
    local pkgs=$SF_DEMO_PACKAGES
    [ "${1:-}" = demo ] || pkgs="$pkgs $SF_TEST_PACKAGES"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
    # Debian's postgresql package may start a cluster of its own; our servers
    # use their own ports, so it is left alone.
}

sf_bindir() { "$(sf_pg_config)" --bindir; }

# Runs a command as the postgres user, from /: the caller's directory may be
# one postgres cannot enter (a clone in /root), which psql and pg_ctl would
# report as "could not change directory".  Paths passed must be absolute.
as_postgres() { (cd / && runuser -u postgres -- "$@"); }

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
    as_postgres "$(sf_bindir)/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U postgres "$@"
}
