#!/usr/bin/env bash
# README.md followed as written, in a fresh Debian 12 root: its shell blocks
# in the order they come, from the first line to its test command, with
# nothing added.  As root, from a git checkout:
#
#   bash test/scripts/readme_route.sh WORKDIR
#
# What is filled in, and what is left out, all of it said by README.md:
#   - URL, the repository's address, is a bare clone of this checkout's
#     committed HEAD (at /srv/snowflake.git in the root);
#   - N, the PostgreSQL major, is 15 (Debian 12's);
#   - the block for PostgreSQL 19 (Debian experimental) is left out;
#   - of the two install routes, the Debian package is followed (the demo
#     uses the package where it is installed; the source route is what the
#     demo does otherwise, and what the rest of the suite does);
#   - of the last block, the demo runs and the test command does not: it is
#     the suite this runs in.
# Then: the package is installed at the changelog's version and `dpkg -V`
# finds none of its files changed (the demo ran on it, did not make install
# over it), and the build changed no file of the clone (`git status
# --porcelain`).
#
# The root is Debian 12 as debootstrap makes it (minbase), built once and
# cached under /var/tmp like the test roots (sf_root_ensure 15 LOG fresh,
# test/lib/pgroot.sh); each run works in a throwaway overlay of it, so every
# run starts from the same fresh system.  README.md's apt-get commands fetch
# from the Debian mirror (test/lib/pgroot.sh's SF_MIRROR) on every run.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/../lib/pgroot.sh"

WORK=${1:?usage: readme_route.sh WORKDIR}
N=15
mkdir -p "$WORK"
R=$(sf_root_path "$N" fresh)
OV=$(readlink -f "$WORK")/overlay
M=$OV/merged

fail() { echo "readme_route.sh: $*" >&2; exit 1; }
inroot() { sf_root_run "$M" "$@"; }

sf_root_ensure "$N" "$WORK/root.log" fresh || { tail -n 20 "$WORK/root.log" >&2; fail "cannot make the fresh Debian root"; }
sf_root_umount "$R"

# Leaves nothing running in the overlay (the demo's server, if a step
# failed), then removes it.
cleanup() {
    sf_overlay_kill "$M"
    sf_overlay_remove "$OV"
}
sf_overlay_mount "$R" "$OV" || fail "cannot mount an overlay of $R"
trap cleanup EXIT
# Name resolution for apt, as on the machine.
cp -L /etc/resolv.conf "$M/etc/resolv.conf" 2>/dev/null || true
git clone -q --bare "$ROOT" "$M/srv/snowflake.git"

# README.md's shell blocks, as the header says.
python3 - "$ROOT/README.md" "$N" >"$M/root/readme.sh" <<'PY'
import re, sys
readme, n = sys.argv[1], sys.argv[2]
blocks = re.findall(r"^```sh\n(.*?)^```", open(readme).read(), re.S | re.M)
out = ["set -ex", "cd /root"]
for b in blocks:
    if "experimental" in b:
        continue                      # PostgreSQL 19 only
    if "make PG_CONFIG=" in b:
        continue                      # the source route
    if "test/run-all.sh" in b:
        b = "".join(l for l in b.splitlines(True) if "test/run-all.sh" not in l)
    if "git clone URL" in b:
        b = b.replace("git clone URL", "git clone /srv/snowflake.git")
    b = re.sub(r"postgresql-(server-dev-)?N\b", lambda m: m.group(0)[:-1] + n, b)
    if re.search(r"\bN\b", re.sub(r"#.*", "", b)):
        sys.exit("a README.md block has an N this script does not fill in:\n" + b)
    out.append(b.rstrip("\n"))
print("\n".join(out))
PY
echo "== README.md's route, as run:"
sed 's/^/    /' "$M/root/readme.sh"
inroot bash /root/readme.sh || fail "README.md's route failed (above)"

version=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -SVersion)
got=$(inroot dpkg-query -W -f '${db:Status-Abbrev}${Version}' "postgresql-$N-snowflake")
[ "$got" = "ii $version" ] || fail "postgresql-$N-snowflake is not installed at $version: $got"
changed=$(inroot dpkg -V "postgresql-$N-snowflake") || fail "dpkg -V failed"
[ -z "$changed" ] || fail "files of the package changed after the demo (dpkg -V): $changed"
changed=$(git -c safe.directory='*' -C "$M/root/snowflake" status --porcelain)
[ -z "$changed" ] || fail "the route changed files of the clone (git status --porcelain): $changed"
echo "README.md's route: postgresql-$N-snowflake $version installed and unchanged after the demo; the clone unchanged"
