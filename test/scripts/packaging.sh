#!/usr/bin/env bash
# What a published extension ships, checked against the files (no version is
# written here, so a new one is picked up as it lands):
#   - LICENSE is the PostgreSQL License;
#   - snowflake.control's default_version is the newest version a script
#     that the build makes from src/sql (make sql-scripts) installs or
#     updates to, and every version has an update path to it (the SQL side of
#     this runs in the regress test extension_versions);
#   - one version: META.json's is the default_version (as x.y.0), and so is
#     debian/changelog's upstream version;
#   - debian/control is what debian/control.in gives for the majors of
#     debian/pgversions (those CI builds), and debian/tests/control accepts
#     the package of any of them;
#   - META.json follows the PGXN Meta Spec 1.0.0 (test/scripts/pgxn_meta.pl,
#     which is first shown to reject broken copies of it);
#   - make dist writes snowflake-VERSION.zip from git, holding exactly the
#     tracked files, whose own META.json is valid and names files it holds;
#     unpacked alone in an empty directory, it builds without a warning,
#     installs and passes the regression suite (preloaded and not).  It
#     installs into a private copy of this machine's PostgreSQL, relocated
#     under WORKDIR/pg as /work/wt/iso does, so the system's is not touched.
#
#   bash test/scripts/packaging.sh [WORKDIR]     (as root, from a git checkout)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/../lib/common.sh"
OUT=${1:-/var/tmp/snowflake-packaging}
cd "$ROOT"

fail() { echo "packaging: $*" >&2; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT"

grep -q '^PostgreSQL License$' LICENSE || fail "LICENSE is not the PostgreSQL License"
grep -q 'Permission to use, copy, modify, and distribute this software' LICENSE ||
    fail "LICENSE lacks the license's grant"

default=$(sed -n "s/^default_version = '\([^']*\)'.*/\1/p" snowflake.control)
[ -n "$default" ] || fail "snowflake.control has no default_version"
semver=$default
[[ $default =~ ^[0-9]+\.[0-9]+$ ]] && semver=$default.0
echo "default_version: $default ($semver)"

# Versions the scripts install (snowflake--V.sql) or update to
# (snowflake--A--B.sql), and the update edges.
perl -e '
    my ($default, @files) = @ARGV;
    my (%versions, %edges);
    for (@files) {
        my ($name) = m{([^/]+)\.sql$} or next;
        if ($name =~ /^snowflake--([\d.]+)--([\d.]+)$/) { $versions{$1} = $versions{$2} = 1; push @{ $edges{$1} }, $2; }
        elsif ($name =~ /^snowflake--([\d.]+)$/) { $versions{$1} = 1; }
        else { die "unexpected script name $_\n"; }
    }
    my $key = sub { join ".", map { sprintf "%06d", $_ } split /\./, $_[0] };
    my @sorted = sort { $key->($a) cmp $key->($b) } keys %versions;
    print "versions: @sorted\n";
    die "default_version $default is not the newest version ($sorted[-1])\n" unless $sorted[-1] eq $default;
    for my $v (@sorted) {
        my %seen = ($v => 1); my @todo = ($v);
        while (@todo) { my $x = shift @todo; for (@{ $edges{$x} || [] }) { push @todo, $_ unless $seen{$_}++ } }
        die "version $v has no update path to $default\n" unless $seen{$default};
    }
' "$default" $(make -s --no-print-directory sql-scripts PG_CONFIG="$(sf_pg_config)")

# What the PGXN spec leaves to the project: the name, the licence, and the
# version of the distribution and of its extension.
perl -MJSON::PP -e '
    my ($file, $want) = @ARGV;
    local $/; open my $fh, "<", $file or die "$file: $!\n";
    my $m = decode_json(<$fh>);
    die "$file: name is $m->{name}\n" unless $m->{name} eq "snowflake";
    die "$file: license is $m->{license}, LICENSE is the PostgreSQL License\n" unless $m->{license} eq "postgresql";
    die "$file: version $m->{version}, snowflake.control says $want\n" unless $m->{version} eq $want;
    my $p = $m->{provides}{snowflake} or die "$file: provides has no snowflake entry\n";
    die "$file: provides.snowflake.version $p->{version}, want $want\n" unless $p->{version} eq $want;
' META.json "$semver"
perl "$HERE/pgxn_meta.pl" "$ROOT"

# The validator is a test too: broken copies of META.json must fail it.
mutants=$OUT/meta-mutants
rm -rf "$mutants"
for change in 'delete $m->{license}' '$m->{version} = "1.5"' '$m->{provides}{snowflake}{file} = "none.sql"' \
        '$m->{"meta-spec"}{version} = "2.0.0"' '$m->{license} = "PostgreSQL"' '$m->{homepage} = "x"' \
        '$m->{provides}{snowflake}{docs} = "README.md"' '$m->{maintainer} = []'; do
    mkdir -p "$mutants"
    cp -r src README.md "$mutants/"
    perl -MJSON::PP -0777 -ne "my \$m = decode_json(\$_); $change; print encode_json(\$m)" META.json \
        >"$mutants/META.json"
    if perl "$HERE/pgxn_meta.pl" "$mutants" >/dev/null; then
        fail "pgxn_meta.pl accepts a META.json with $change"
    fi
    rm -rf "$mutants"
done
echo "pgxn_meta.pl rejects 8 broken copies of META.json"

# The Debian packaging carries the same version, and debian/control is
# current: it lists the majors CI builds, and the build, which leaves out the
# packages of the majors at hand, fails on one that is not current.
deb=$(dpkg-parsechangelog -l debian/changelog -SVersion)
upstream=${deb#*:}
upstream=${upstream%-*}
[ "${upstream%%[~+]*}" = "$semver" ] ||
    fail "debian/changelog is at $deb, snowflake.control at $default ($semver)"
echo "debian/changelog: $deb"
controls=$OUT/debian-control
rm -rf "$controls"
mkdir -p "$controls"
cp -r debian "$controls/"
majors=$(sed -e 's/#.*//' debian/pgversions | xargs)
(cd "$controls" && PG_SUPPORTED_VERSIONS="$majors" pg_buildext updatecontrol)
diff -u debian/control "$controls/debian/control" ||
    fail "debian/control is not what debian/control.in gives: run PG_SUPPORTED_VERSIONS=\"$majors\" pg_buildext updatecontrol"
want=$(for v in $majors; do printf 'postgresql-%s-snowflake | ' "$v"; done)
grep -qxF " ${want% | }," debian/tests/control ||
    fail "debian/tests/control does not accept the package of each major of debian/pgversions ($majors)"
echo "debian/control and debian/tests/control: PostgreSQL $majors"

# make dist, from git: exactly the tracked files of HEAD, under snowflake-VERSION/.
git rev-parse --git-dir >/dev/null 2>&1 || fail "$ROOT is not a git checkout: make dist needs git"
mkdir -p "$OUT/dist" "$OUT/clean"
make -s dist DISTDIR="$OUT/dist"
zip="$OUT/dist/snowflake-$semver.zip"
[ -f "$zip" ] || fail "make dist did not write $zip"
(cd "$OUT/clean" && unzip -q "$zip")
[ "$(ls "$OUT/clean")" = "snowflake-$semver" ] || fail "the archive does not hold snowflake-$semver/ alone"
tree=$OUT/clean/snowflake-$semver
diff <(git ls-tree -r --name-only HEAD | sort) <(cd "$tree" && find . -type f | sed 's|^\./||' | sort) ||
    fail "the archive does not hold exactly the tracked files of HEAD"
echo "$(basename "$zip"): $(git ls-tree -r --name-only HEAD | wc -l) files"
perl "$HERE/pgxn_meta.pl" "$tree"

# The archive alone: built, installed into a private PostgreSQL, tested.
pg=$OUT/pg
major=$("$(sf_pg_config)" --version | sed 's/^PostgreSQL \([0-9]*\).*/\1/')
# Whatever the machine has of snowflake is left out of the copy, and never
# read: run-all.sh runs this while run-version.sh make-installs there.
mkdir -p "$pg/usr/lib/postgresql" "$pg/usr/share/postgresql" "$pg/usr/include"
rsync -a --exclude 'snowflake*' "/usr/lib/postgresql/$major" "$pg/usr/lib/postgresql/"
rsync -a --exclude 'snowflake*' "/usr/share/postgresql/$major" "$pg/usr/share/postgresql/"
rsync -a /usr/include/postgresql "$pg/usr/include/"
chown -R postgres: "$OUT"
pgc=$pg/usr/lib/postgresql/$major/bin/pg_config
as_postgres make -C "$tree" -j2 PG_CONFIG="$pgc" >"$OUT/build.out" 2>&1 ||
    { tail -n 30 "$OUT/build.out"; fail "the archive does not build"; }
if grep -n 'warning:' "$OUT/build.out"; then fail "the archive's build is not warning-free"; fi
as_postgres make -C "$tree" install PG_CONFIG="$pgc" >/dev/null
echo "the archive builds and installs into $pg (PostgreSQL $major)"
if ! as_postgres make -C "$tree" installcheck installcheck-nopreload PG_CONFIG="$pgc"; then
    [ ! -f "$tree/regression.diffs" ] || head -n 80 "$tree/regression.diffs"
    fail "the archive's regression suite fails"
fi
echo "the archive passes its regression suite"
