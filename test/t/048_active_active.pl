# Active-active over native logical replication (PostgreSQL 16 and later):
# two nodes with distinct (datacenter_id, worker_id) each publish the same
# table and subscribe to the other with origin = none, so each applies only
# the rows the other made itself.  Both insert 50,000 rows at the same time
# with DEFAULT snowflake_nextval() while replication runs.  Afterwards both
# hold all 100,000 rows, no subscription hit a conflict (server logs,
# pg_stat_subscription_stats), and every id decodes to the node that made it.
use strict;
use warnings;
use File::Temp qw(tempfile);
use IPC::Run;
use Time::HiRes qw(time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use SnowflakeTest;

plan skip_all => 'origin = none (subscriptions that skip replicated rows) needs PostgreSQL 16'
  if PostgreSQL::Test::Cluster->new('aa_version')->pg_version < 16;

my $ROWS = 50_000;
my $BATCH = 1_000;
my @spec = ([ 'n1', 1, 1 ], [ 'n2', 1, 2 ]);

my %node;
foreach my $s (@spec)
{
	my ($name, $dc, $worker) = @$s;
	$node{$name} = new_publisher("aa_$name", $dc, $worker);
}

# Each node subscribes to the other.  origin = none: only rows the other node
# made itself, not the ones it applied from us (no ping-pong).  The tables
# are empty, so there is nothing to copy.
my %peer = (n1 => 'n2', n2 => 'n1');
foreach my $name (sort keys %peer)
{
	my $conn = $node{ $peer{$name} }->connstr . ' dbname=postgres';
	$node{$name}->safe_psql('postgres',
		"CREATE SUBSCRIPTION sub_$name CONNECTION '$conn' PUBLICATION pub_ev "
		  . 'WITH (origin = none, copy_data = false)');
}
$node{ $peer{$_} }->wait_for_catchup("sub_$_") foreach sort keys %peer;
my %log_offset = map { ($_ => -s $node{$_}->logfile) } keys %node;

# ---- Both inserts at once.  Each psql sleeps until a common start time, then
# runs 50 statements of 1,000 rows, each its own transaction.
my $start_at = time + 1.5;
my @runs;
foreach my $name (sort keys %node)
{
	my ($fh, $file) = tempfile("aa_${name}_XXXX", DIR => $node{$name}->basedir, UNLINK => 1);
	printf $fh "SELECT pg_sleep(greatest(0, %.3f - extract(epoch FROM clock_timestamp())));\n", $start_at;
	for (my $i = 0; $i < $ROWS; $i += $BATCH)
	{
		printf $fh "INSERT INTO ev(node, payload) SELECT '%s', g FROM generate_series(%d, %d) g;\n",
		  $name, $i + 1, $i + $BATCH;
	}
	close $fh or die $!;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node{$name}->connstr('postgres'), '-f', $file ],
		'>', \$out, '2>', \$err,
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	push @runs, { name => $name, h => $h, err => \$err };
}
foreach my $r (@runs)
{
	my $ok = eval { $r->{h}->finish };
	is($ok ? 0 : $r->{h}->full_result(0), 0, "$r->{name}: 50 inserts of 1,000 rows succeed");
	is(${ $r->{err} }, '', "$r->{name}: no error output") or diag(${ $r->{err} });
}

# ---- Replication catches up both ways.
foreach my $name (sort keys %peer)
{
	$node{ $peer{$name} }->wait_for_catchup("sub_$name");
	$node{$name}->poll_query_until('postgres', 'SELECT count(*) = 100000 FROM ev')
	  or die "$name did not get all 100000 rows";
}

my $fingerprint = q{SELECT count(*) || ' ' || count(DISTINCT id) || ' '
                       || md5(string_agg(id || node || payload, ',' ORDER BY id)) FROM ev};
my %fp = map { ($_ => $node{$_}->safe_psql('postgres', $fingerprint)) } keys %node;
like($fp{n1}, qr/^100000 100000 /, 'n1 holds 100,000 rows with 100,000 distinct ids');
is($fp{n2}, $fp{n1}, 'n2 holds exactly the same rows');
foreach my $name (sort keys %node)
{
	is( $node{$name}->safe_psql('postgres',
			q{SELECT string_agg(node || ':' || c, ',' ORDER BY node) FROM (SELECT node, count(*) c FROM ev GROUP BY node) s}),
		'n1:50000,n2:50000', "$name: 50,000 rows made by each node");
}

# ---- No conflict: nothing in the logs, nothing in the statistics (every
# apply/sync error counter, and on 18 the per-conflict-type counters).
foreach my $name (sort keys %node)
{
	my $log = substr(slurp_file($node{$name}->logfile), $log_offset{$name});
	unlike($log, qr/duplicate key/i, "$name log: no duplicate-key error");
	unlike($log, qr/conflict/i, "$name log: no conflict");
	my @errors = $log =~ /^.*\bERROR:.*$/mg;
	is(scalar(@errors), 0, "$name log: no ERROR at all") or diag(join "\n", @errors);
	my $counters = $node{$name}->safe_psql('postgres', q{
SELECT string_agg(column_name, ' + ' ORDER BY ordinal_position) FROM information_schema.columns
WHERE table_name = 'pg_stat_subscription_stats' AND column_name ~ '(_error_count|^confl_)'});
	note "$name: pg_stat_subscription_stats counters checked: $counters";
	is( $node{$name}->safe_psql('postgres',
			"SELECT count(*) || ' ' || coalesce(sum($counters), 0) FROM pg_stat_subscription_stats WHERE subname = 'sub_$name'"),
		'1 0', "$name: pg_stat_subscription_stats shows no error or conflict");
}

# ---- Every id decodes to the node that made it (snowflake_parse and plain
# bit arithmetic of the default layout 41 | 5 | 5 | 12), on both nodes.
my $expected = join ', ', map { "('$_->[0]', $_->[1], $_->[2])" } @spec;
foreach my $name (sort keys %node)
{
	is( $node{$name}->safe_psql('postgres', <<"EOS"),
SELECT count(*) FILTER (WHERE (p.datacenter_id, p.worker_id) IS DISTINCT FROM (x.dc, x.w)),
       count(*) FILTER (WHERE ((e.id >> 17) & 31, (e.id >> 12) & 31) IS DISTINCT FROM (x.dc::bigint, x.w::bigint)),
       count(*)
  FROM ev e JOIN (VALUES $expected) x(node, dc, w) USING (node), LATERAL snowflake_parse(e.id) p
EOS
		'0|0|100000', "$name: every id decodes to the node that made it");
}

# ---- The inserts overlapped in time, and the ids of the two nodes interleave.
my ($overlap_ms, $switches) = split /\|/, $node{n1}->safe_psql('postgres', <<'EOS');
SELECT (extract(epoch FROM least(max(made_at) FILTER (WHERE node = 'n1'), max(made_at) FILTER (WHERE node = 'n2'))
        - greatest(min(made_at) FILTER (WHERE node = 'n1'), min(made_at) FILTER (WHERE node = 'n2'))) * 1000)::int,
       (SELECT count(*) FROM (SELECT node <> lag(node) OVER (ORDER BY id) AS sw FROM ev) s WHERE sw)
FROM ev
EOS
note "both nodes inserted at the same time for $overlap_ms ms; $switches node changes along id order";
cmp_ok($overlap_ms, '>', 0, 'the two inserts overlapped in time');
cmp_ok($switches, '>', 2, 'ids of the two nodes interleave');

$node{$_}->safe_psql('postgres', "DROP SUBSCRIPTION sub_$_") foreach sort keys %node;
$node{$_}->stop foreach sort keys %node;
done_testing();
