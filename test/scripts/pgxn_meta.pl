#!/usr/bin/perl
# Validates a distribution's META.json as PGXN does on upload, against the
# PGXN Meta Spec 1.0.0 (https://pgxn.org/spec/): the required keys (name,
# version, abstract, maintainer, license, provides, meta-spec), the type and
# form of every key the spec defines, no keys it does not define (other than
# x_ ones), and semantic versions where it asks for them.  Then what the spec
# cannot see: the files that provides names exist in the distribution.
#
#   perl test/scripts/pgxn_meta.pl DISTDIR        (DISTDIR/META.json)
#
# Prints "META.json: NAME VERSION" and exits 0, or prints every problem found
# and exits 1.  Only Perl's core modules: it runs where the build runs.
use strict;
use warnings;
use JSON::PP;

my $dir = shift or die "usage: $0 DISTDIR\n";
my $file = "$dir/META.json";
open my $fh, '<', $file or die "$file: $!\n";
my $meta = eval { JSON::PP->new->utf8->decode(do { local $/; <$fh> }) }
    or die "$file is not valid JSON: $@";

my @errors;
sub problem { push @errors, "$_[0]: $_[1]" }

# Semantic Versioning 2.0.0, as the spec requires of every version.
my $num = qr/0|[1-9]\d*/;
my $pre = qr/(?:$num|\d*[a-zA-Z-][0-9a-zA-Z-]*)/;
my $semver = qr/$num\.$num\.$num(?:-$pre(?:\.$pre)*)?(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?/;

my %licenses = map { $_ => 1 } qw(agpl_3 apache_1_1 apache_2_0 artistic_1 artistic_2 bsd freebsd
    gfdl_1_2 gfdl_1_3 gpl_1 gpl_2 gpl_3 lgpl_2_1 lgpl_3_0 mit mozilla_1_0 mozilla_1_1 openssl
    perl_5 postgresql qpl_1_0 ssleay sun zlib open_source restricted unrestricted unknown);

sub is_string { defined $_[0] && !ref $_[0] && !JSON::PP::is_bool($_[0]) }
sub is_object { ref $_[0] eq 'HASH' }
sub is_array  { ref $_[0] eq 'ARRAY' }

# A "term": two characters or more, no slash, backslash, space or control.
sub term {
    my ($where, $v) = @_;
    is_string($v) && $v =~ m{^[^/\\\s[:cntrl:]]{2,}$} or problem($where, "not a term (2+ characters, no slash, backslash, space or control character)");
}
sub text {
    my ($where, $v) = @_;
    is_string($v) && length $v or problem($where, "not a non-empty string");
}
sub version {
    my ($where, $v) = @_;
    is_string($v) && $v =~ /^$semver$/ or problem($where, "\"" . ($v // 'null') . "\" is not a semantic version (x.y.z)");
}
# A path inside the distribution: relative, Unix separators, no "..".
sub path {
    my ($where, $v) = @_;
    is_string($v) && length $v >= 2 && $v !~ m{^/} && $v !~ m{\\} && $v !~ m{(^|/)\.\.(/|$)}
        or problem($where, "not a relative path inside the distribution");
}
sub uri {
    my ($where, $v) = @_;
    is_string($v) && $v =~ m{^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$} or problem($where, "not a URI");
}
# Keys a map may hold: the spec's, and any starting with x_ or X_.
sub keys_only {
    my ($where, $h, @allowed) = @_;
    my %ok = map { $_ => 1 } @allowed;
    problem($where eq '' ? $_ : "$where.$_", "not a key the spec defines (custom keys start with x_)")
        for grep { !$ok{$_} && !/^[xX]_./ } sort keys %$h;
}
sub object {
    my ($where, $v) = @_;
    is_object($v) or problem($where, "not an object"), return 0;
    return 1;
}

# Top level.
object('META.json', $meta) or report();
for (qw(name version abstract maintainer license provides meta-spec)) {
    problem($_, "required by the spec, missing") unless exists $meta->{$_};
}
keys_only('', $meta, qw(name version abstract maintainer license provides meta-spec description
    generated_by tags no_index prereqs release_status resources));

term('name', $meta->{name}) if exists $meta->{name};
version('version', $meta->{version}) if exists $meta->{version};
text($_, $meta->{$_}) for grep { exists $meta->{$_} } qw(abstract description generated_by);

if (exists $meta->{maintainer}) {
    my $m = $meta->{maintainer};
    if (is_array($m)) {
        problem('maintainer', "an empty list") unless @$m;
        text("maintainer[$_]", $m->[$_]) for 0 .. $#$m;
    } else {
        text('maintainer', $m);
    }
}

if (exists $meta->{license}) {
    my $l = $meta->{license};
    if (is_object($l)) {
        problem('license', "an empty map") unless %$l;
        uri("license.$_", $l->{$_}) for sort keys %$l;
    } else {
        my @l = is_array($l) ? @$l : ($l);
        problem('license', "an empty list") unless @l;
        for (@l) { is_string($_) && $licenses{$_} or problem('license', "\"" . ($_ // 'null') . "\" is not a license the spec names") }
    }
}

if (exists $meta->{provides} && object('provides', $meta->{provides})) {
    my $p = $meta->{provides};
    problem('provides', "names no extension") unless %$p;
    for my $ext (sort keys %$p) {
        my $w = "provides.$ext";
        term("$w (its name)", $ext);
        object($w, $p->{$ext}) or next;
        my $e = $p->{$ext};
        keys_only($w, $e, qw(file version abstract docfile docpath));
        for (qw(file version)) { problem("$w.$_", "required by the spec, missing") unless exists $e->{$_} }
        version("$w.version", $e->{version}) if exists $e->{version};
        text("$w.$_", $e->{$_}) for grep { exists $e->{$_} } qw(abstract docpath);
        for my $k (grep { exists $e->{$_} } qw(file docfile)) {
            path("$w.$k", $e->{$k});
            problem("$w.$k", "\"$e->{$k}\" is not in the distribution") if is_string($e->{$k}) && !-f "$dir/$e->{$k}";
        }
    }
}

if (exists $meta->{'meta-spec'} && object('meta-spec', $meta->{'meta-spec'})) {
    my $s = $meta->{'meta-spec'};
    keys_only('meta-spec', $s, qw(version url));
    is_string($s->{version}) && $s->{version} =~ /^1\.0\.\d+$/
        or problem('meta-spec.version', "not a 1.0.x version of the spec");
    !exists $s->{url} || (is_string($s->{url}) && $s->{url} =~ m{^https?://pgxn\.org/meta/spec\.txt$})
        or problem('meta-spec.url', "not the spec's URL");
}

if (exists $meta->{tags}) {
    my $t = $meta->{tags};
    if (!is_array($t) || !@$t) {
        problem('tags', "not a non-empty list");
    } else {
        my %seen;
        for (@$t) {
            is_string($_) && length($_) >= 2 && length($_) <= 255 && m{^[^/\\[:cntrl:]]+$}
                or problem('tags', "\"" . ($_ // 'null') . "\" is not a tag (2 to 255 characters, no slash, backslash or control)");
            problem('tags', "\"$_\" twice") if is_string($_) && $seen{$_}++;
        }
    }
}

if (exists $meta->{release_status}) {
    my $r = $meta->{release_status};
    is_string($r) && $r =~ /^(stable|testing|unstable)$/ or problem('release_status', "not stable, testing or unstable");
}

if (exists $meta->{prereqs} && object('prereqs', $meta->{prereqs})) {
    my $p = $meta->{prereqs};
    keys_only('prereqs', $p, qw(configure build test runtime develop));
    for my $phase (grep { !/^[xX]_/ } sort keys %$p) {
        object("prereqs.$phase", $p->{$phase}) or next;
        my $ph = $p->{$phase};
        keys_only("prereqs.$phase", $ph, qw(requires recommends suggests conflicts));
        for my $rel (grep { !/^[xX]_/ } sort keys %$ph) {
            my $w = "prereqs.$phase.$rel";
            object($w, $ph->{$rel}) or next;
            problem($w, "names nothing") unless %{ $ph->{$rel} };
            for my $name (sort keys %{ $ph->{$rel} }) {
                term("$w.$name (its name)", $name);
                my $v = $ph->{$rel}{$name};
                my $range = qr/(?:(?:[=!]=|[<>]=?)\s*)?$semver/;
                (defined $v && !ref $v && ($v eq '0' || $v =~ /^(?:$range|0)(?:,\s*$range)*$/))
                    or problem("$w.$name", "\"" . ($v // 'null') . "\" is not a version range");
            }
        }
    }
}

if (exists $meta->{resources} && object('resources', $meta->{resources})) {
    my $r = $meta->{resources};
    keys_only('resources', $r, qw(homepage bugtracker repository));
    uri('resources.homepage', $r->{homepage}) if exists $r->{homepage};
    if (exists $r->{bugtracker} && object('resources.bugtracker', $r->{bugtracker})) {
        keys_only('resources.bugtracker', $r->{bugtracker}, qw(web mailto));
        uri('resources.bugtracker.web', $r->{bugtracker}{web}) if exists $r->{bugtracker}{web};
        text('resources.bugtracker.mailto', $r->{bugtracker}{mailto}) if exists $r->{bugtracker}{mailto};
    }
    if (exists $r->{repository} && object('resources.repository', $r->{repository})) {
        keys_only('resources.repository', $r->{repository}, qw(url web type));
        uri("resources.repository.$_", $r->{repository}{$_}) for grep { exists $r->{repository}{$_} } qw(url web);
        text('resources.repository.type', $r->{repository}{type}) if exists $r->{repository}{type};
    }
}

if (exists $meta->{no_index} && object('no_index', $meta->{no_index})) {
    my $n = $meta->{no_index};
    keys_only('no_index', $n, qw(file directory));
    for my $k (grep { exists $n->{$_} } qw(file directory)) {
        my @p = is_array($n->{$k}) ? @{ $n->{$k} } : ($n->{$k});
        path("no_index.$k", $_) for @p;
    }
}

report();

sub report {
    if (@errors) {
        print "$file does not follow the PGXN Meta Spec 1.0.0:\n";
        print "  $_\n" for @errors;
        exit 1;
    }
    print "META.json: $meta->{name} $meta->{version} (PGXN Meta Spec $meta->{'meta-spec'}{version})\n";
    exit 0;
}
