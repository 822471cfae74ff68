#!/usr/bin/env bash
# What a published extension ships, checked against the files (no version is
# written here, so a new one is picked up as it lands):
#   - LICENSE is the PostgreSQL License;
#   - snowflake.control's default_version is the newest version a script in
#     src/sql installs or updates to, and every version has an update path
#     to it (the SQL side of this runs in the regress test extension_versions);
#   - META.json is PGXN metadata (meta-spec 1.0.0 keys) whose version is the
#     default_version (as x.y.0), with a provides entry for the extension;
#   - make dist writes snowflake-VERSION.zip from git, holding exactly the
#     tracked files, and what it holds builds.
#
#   bash test/scripts/packaging.sh [WORKDIR]     (from a git checkout)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/../lib/common.sh"
OUT=${1:-/var/tmp/snowflake-packaging}
cd "$ROOT"

fail() { echo "packaging: $*" >&2; exit 1; }

grep -q '^PostgreSQL License$' LICENSE || fail "LICENSE is not the PostgreSQL License"
grep -q 'Permission to use, copy, modify, and distribute this software' LICENSE ||
    fail "LICENSE lacks the license's grant"

default=$(sed -n "s/^default_version = '\([^']*\)'.*/\1/p" snowflake.control)
[ -n "$default" ] || fail "snowflake.control has no default_version"
echo "default_version: $default"

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
' "$default" src/sql/snowflake--*.sql

perl -MJSON::PP -e '
    my ($file, $default) = @ARGV;
    local $/; open my $fh, "<", $file or die "$file: $!\n";
    my $m = eval { decode_json(<$fh>) } or die "$file is not valid JSON: $@";
    for (qw(name abstract version maintainer license provides meta-spec)) {
        die "$file lacks \"$_\" (required by the PGXN meta spec)\n" unless exists $m->{$_};
    }
    die "$file: name is $m->{name}\n" unless $m->{name} eq "snowflake";
    die "$file: license is $m->{license}, LICENSE is the PostgreSQL License\n" unless $m->{license} eq "postgresql";
    die "$file: meta-spec version is not 1.0.0\n" unless $m->{"meta-spec"}{version} eq "1.0.0";
    my $want = $default =~ /^\d+\.\d+$/ ? "$default.0" : $default;
    die "$file: version $m->{version}, snowflake.control says $default (semver $want)\n"
        unless $m->{version} eq $want;
    my $p = $m->{provides}{snowflake} or die "$file: provides has no snowflake entry\n";
    die "$file: provides.snowflake.version $p->{version}, want $want\n" unless $p->{version} eq $want;
    die "$file: provides.snowflake.file $p->{file} does not exist\n" unless -f $p->{file};
    print "META.json: snowflake $m->{version}, license $m->{license}\n";
' META.json "$default"

# make dist, from git: exactly the tracked files of HEAD, under snowflake-VERSION/.
git rev-parse --git-dir >/dev/null 2>&1 || fail "$ROOT is not a git checkout: make dist needs git"
rm -rf "$OUT"
mkdir -p "$OUT"
make -s dist DISTDIR="$OUT"
zip="$OUT/snowflake-$default.zip"
[ -f "$zip" ] || fail "make dist did not write $zip"
(cd "$OUT" && unzip -q "$zip")
diff <(git ls-tree -r --name-only HEAD | sort) \
     <(cd "$OUT/snowflake-$default" && find . -type f | sed 's|^\./||' | sort) ||
    fail "the archive does not hold exactly the tracked files of HEAD"
echo "$(basename "$zip"): $(git ls-tree -r --name-only HEAD | wc -l) files"
# What it holds builds, against this machine's PostgreSQL (no install).
make -s -C "$OUT/snowflake-$default" -j2 with_llvm=no PG_CONFIG="$(sf_pg_config)" >/dev/null
echo "the archive builds: $(ls "$OUT/snowflake-$default"/*.so)"
