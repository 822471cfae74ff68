# The Citus examples of the documentation (docs/citus.md), run on a
# Citus cluster: the SQL blocks the documentation's own examples suite skips
# with a reason starting "Citus cluster".  As there, psql runs each block
# (echoing its input) and the transcript must equal the block; vary=... in
# the block's doctest comment lets ids and the like differ.
#
# The cluster: a coordinator and two workers in database app, identities
# from the cluster (snowflake.citus_database = 'app'), so the coordinator is
# worker 0 and the workers are workers 1 and 2; and a node with the same
# settings that is never added ("on a node not yet added").
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use CitusTest;

my $doc = "$FindBin::RealBin/../../docs/citus.md";
my @lines = split /\n/, slurp_file($doc), -1;

# The blocks to run: [line, node, vary patterns, text].
my @blocks;
for (my $i = 0; $i < @lines; $i++)
{
	next unless $lines[$i] =~ /^<!--\s*doctest:(.*?)-->\s*$/;
	my $opts = $1;
	next unless $opts =~ /skip="Citus cluster([^"]*)"/;
	my $where = $1;
	my $node = $where =~ /not yet added/ ? 'lone' : 'coord';
	my @vary = $opts =~ /vary=(\S+)/ ? split(/,/, $1) : ();
	die "$doc:" . ($i + 2) . ": an sql block must follow" unless $lines[ $i + 1 ] =~ /^```sql\s*$/;
	my $j = $i + 2;
	my @body;
	push @body, $lines[ $j++ ] while $lines[$j] !~ /^```\s*$/;
	push @blocks, [ $i + 3, $node, \@vary, join("\n", @body) ];
}
cmp_ok(scalar(@blocks), '>=', 8, 'the documentation has its Citus examples');

# psql's input: the block without what psql prints (messages, and tables
# from their header to their row count).
sub psql_input
{
	my @l = split /\n/, $_[0], -1;
	my @out;
	for (my $i = 0; $i < @l; $i++)
	{
		if ($l[$i] =~ /^(ERROR|DETAIL|HINT|NOTICE|WARNING|INFO|CONTEXT|LINE \d+):|^\s*\^\s*$/)
		{
			next;
		}
		if ($i + 1 < @l && $l[ $i + 1 ] =~ /^\s*-+(\+-+)*\s*$/)
		{
			$i += 2;
			$i++ while $i < @l && $l[$i] !~ /^\s*\(\d+ rows?\)\s*$/;
			next;
		}
		push @out, $l[$i];
	}
	return join("\n", @out) . "\n";
}

sub normalize { return grep { /\S/ } map { s/\s+$//r } split /\n/, $_[0]; }

my %named = (
	id => qr/\d{10,19}/,
	ts => qr/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?\+00/,
	int => qr/-?\d+/,
	num => qr/-?\d+(?:\.\d+)?/,
	word => qr/[A-Za-z0-9_]+/);

sub matches
{
	my ($expected, $actual, @vary) = @_;
	my @e = normalize($expected);
	my @a = normalize($actual);
	return join("\n", @e) eq join("\n", @a) unless @vary;
	return 0 unless @e == @a;
	my $any = join('|', map { m{^/(.*)/$} ? "(?:$1)" : "(?:$named{$_})" } @vary);
	for my $k (0 .. $#e)
	{
		my $line = $e[$k];
		my $rx;
		if ($line =~ /^\s*[-+]+\s*$/)
		{
			$rx = '\s*[-+]+';
		}
		else
		{
			my ($pos, @parts) = (0);
			while ($line =~ /$any/g)
			{
				push @parts, quotemeta(substr($line, $pos, $-[0] - $pos)), "(?:$any)";
				$pos = $+[0];
			}
			push @parts, quotemeta(substr($line, $pos));
			$rx = join('', @parts);
			$rx =~ s/(\\ )+/\\s*/g;
			$rx = '\s*' . ($rx =~ s/^(\\s\*)+|(\\s\*)+$//gr) . '\s*';
		}
		return 0 unless $a[$k] =~ /^$rx$/;
	}
	return 1;
}

# ---- the cluster ------------------------------------------------------------------
my @conf = ("snowflake.citus_database = 'app'");
my %nodes;
for my $name (qw(coord worker1 worker2 lone))
{
	my $n = PostgreSQL::Test::Cluster->new($name);
	$n->init;
	$n->append_conf('postgresql.conf', join('', map { "$_\n" } (
		"shared_preload_libraries = 'citus,snowflake'",
		"max_prepared_transactions = 20",
		"citus.local_hostname = '" . $n->host . "'",
		"citus.enable_statistics_collection = off",
		"TimeZone = 'UTC'", "lc_messages = 'C'", @conf)));
	$n->start;
	$n->safe_psql('postgres', 'CREATE DATABASE app');
	$n->safe_psql('app', 'CREATE EXTENSION citus');
	$nodes{$name} = $n;
}
my $coord = $nodes{coord};
$coord->safe_psql('app', "SELECT citus_set_coordinator_host('" . $coord->host . "', " . $coord->port . ")");
$coord->safe_psql('app', "SELECT citus_add_node('" . $_->host . "', " . $_->port . ")")
  for ($nodes{worker1}, $nodes{worker2});
$coord->safe_psql('app', 'CREATE EXTENSION snowflake');
$nodes{lone}->safe_psql('app', 'CREATE EXTENSION snowflake');
for my $name (qw(coord worker1 worker2))
{
	$nodes{$name}->poll_query_until('app', 'SELECT worker_id IS NOT NULL FROM snowflake_status')
	  or die "$name has no identity";
}
# The node not added: its worker connects to app once it exists (it retries
# every 10 s).
{
	my $ok = 0;
	for (1 .. 60)
	{
		my ($ret, $out, $err) = $nodes{lone}->psql('app', 'SELECT snowflake_nextval()');
		if ($err =~ /not part of a Citus cluster yet/) { $ok = 1; last; }
		sleep 1;
	}
	$ok or die 'the node not added never read its catalog';
}

# ---- the examples, in document order ----------------------------------------------
for my $b (@blocks)
{
	my ($line, $node, $vary, $text) = @$b;
	my $n = $nodes{$node};
	my ($out, $err);
	IPC::Run::run([ 'psql', '-X', '-a', '-q', '-h', $n->host, '-p', $n->port, '-U', 'postgres',
			'-d', 'app', '-P', 'pager=off', '-v', 'SHOW_CONTEXT=never' ],
		'<', \psql_input($text), '>&', \$out);
	ok(matches($text, $out, @$vary), "docs/citus.md:$line (on $node)")
	  or diag("expected:\n$text\n\ngot:\n$out");
}

done_testing();
