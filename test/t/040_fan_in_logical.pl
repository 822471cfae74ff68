# Fan-in over native logical replication (issue 6, item 1): three nodes with
# distinct (datacenter_id, worker_id) insert 50,000 rows each, at the same
# time, into ev(id DEFAULT snowflake_nextval()); an aggregator subscribes to
# all three into one table with a PRIMARY KEY.  Every row arrives, the
# aggregator logs no conflict, every id decodes to the node that made it, and
# ids from different nodes are k-sorted: ordered by id, rows are out of time
# order by no more than the nodes' clocks differ (one machine here: a few ms).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use File::Temp qw(tempfile);
use IPC::Run;
use Time::HiRes qw(time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SnowflakeTest;
use Test::More;

my $ROWS = 50_000;
my $BATCH = 1_000;
my @spec = ([ 'n1', 1, 1 ], [ 'n2', 1, 2 ], [ 'n3', 2, 1 ]);

my %node;
foreach my $s (@spec)
{
	my ($name, $dc, $worker) = @$s;
	$node{$name} = new_publisher("fan_$name", $dc, $worker);
}

# The aggregator only stores and decodes: the extension is installed but not
# preloaded (snowflake_parse needs no preload).
my $agg = PostgreSQL::Test::Cluster->new('fan_agg');
$agg->init;
$agg->append_conf('postgresql.conf', <<'EOC');
max_logical_replication_workers = 8
max_worker_processes = 16
EOC
$agg->start;
$agg->safe_psql('postgres', <<'EOS');
CREATE EXTENSION snowflake;
CREATE TABLE ev(id bigint PRIMARY KEY, node text NOT NULL, made_at timestamptz NOT NULL, payload int);
EOS
foreach my $s (@spec)
{
	my $name = $s->[0];
	my $conn = $node{$name}->connstr . ' dbname=postgres';
	# The tables are empty: nothing to copy; the slot is created now, so
	# every later insert is streamed.
	$agg->safe_psql('postgres',
		"CREATE SUBSCRIPTION sub_$name CONNECTION '$conn' PUBLICATION pub_ev WITH (copy_data = false)");
}
$node{$_->[0]}->wait_for_catchup("sub_$_->[0]") foreach @spec;
my $log_offset = -s $agg->logfile;

# ---- The three inserts at once.  Each psql first sleeps until a common start
# time, then runs its 50 statements of 1,000 rows, each its own transaction.
my $start_at = time + 1.5;
my @runs;
foreach my $s (@spec)
{
	my $name = $s->[0];
	my ($fh, $file) = tempfile("fan_${name}_XXXX", DIR => $node{$name}->basedir, UNLINK => 1);
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
	push @runs, { name => $name, h => $h, out => \$out, err => \$err };
}
foreach my $r (@runs)
{
	my $ok = eval { $r->{h}->finish };
	is($ok ? 0 : $r->{h}->full_result(0), 0, "node $r->{name}: 50 inserts of 1,000 rows succeed");
	is(${ $r->{err} }, '', "node $r->{name}: no error output") or diag(${ $r->{err} });
}
my $t_inserted = time;

# ---- Wait for the aggregator.
$node{$_->[0]}->wait_for_catchup("sub_$_->[0]") foreach @spec;
$agg->poll_query_until('postgres', 'SELECT count(*) = 150000 FROM ev')
  or die 'the aggregator did not receive 150000 rows';
note sprintf('aggregator caught up %.2f s after the inserts ended', time - $t_inserted);

is($agg->safe_psql('postgres', 'SELECT count(*), count(DISTINCT id) FROM ev'), '150000|150000',
	'150,000 rows arrived, 150,000 distinct ids');
is( $agg->safe_psql('postgres', q{SELECT string_agg(node || ':' || c, ',' ORDER BY node) FROM (SELECT node, count(*) c FROM ev GROUP BY node) s}),
	'n1:50000,n2:50000,n3:50000', '50,000 rows from each node');
foreach my $s (@spec)
{
	is($node{ $s->[0] }->safe_psql('postgres', 'SELECT count(*) FROM ev'), '50000',
		"node $s->[0] holds its 50,000 rows");
}

# ---- No conflict.
my $log = substr(slurp_file($agg->logfile), $log_offset);
unlike($log, qr/duplicate key/i, 'aggregator log: no duplicate-key error');
unlike($log, qr/conflict/i, 'aggregator log: no conflict');
my @errors = $log =~ /^.*\bERROR:.*$/mg;
is(scalar(@errors), 0, 'aggregator log: no ERROR at all') or diag(join "\n", @errors);
# Every error counter of the view (PostgreSQL 19 splits sync_error_count into
# sync_table_error_count and sync_seq_error_count).
is($agg->safe_psql('postgres', q{
SELECT coalesce(sum(e.value::bigint), 0) || ' in ' || count(DISTINCT e.key) || ' counters'
FROM pg_stat_subscription_stats s, jsonb_each_text(to_jsonb(s)) e
WHERE e.key LIKE '%error_count'}),
	($agg->pg_version->major >= 19 ? '0 in 3 counters' : '0 in 2 counters'),
	'pg_stat_subscription_stats: no apply or sync error');

# ---- Every id decodes to the node that made it (snowflake_parse and plain
# bit arithmetic of the default layout: 41 | 5 | 5 | 12).
my $expected = join ', ', map { "('$_->[0]', $_->[1], $_->[2])" } @spec;
is( $agg->safe_psql('postgres', <<"EOS"),
SELECT count(*) FILTER (WHERE (p.datacenter_id, p.worker_id) IS DISTINCT FROM (x.dc, x.w)),
       count(*) FILTER (WHERE ((e.id >> 17) & 31, (e.id >> 12) & 31) IS DISTINCT FROM (x.dc::bigint, x.w::bigint)),
       count(*)
  FROM ev e JOIN (VALUES $expected) x(node, dc, w) USING (node), LATERAL snowflake_parse(e.id) p
EOS
	'0|0|150000', 'every id decodes (snowflake_parse and bit arithmetic) to the node that made it');

# ---- Within a node, id order is insertion order.
is( $agg->safe_psql('postgres', <<'EOS'),
SELECT count(*) FROM (
  SELECT made_at < lag(made_at) OVER (PARTITION BY node ORDER BY id) AS back FROM ev) s WHERE back
EOS
	'0', 'within each node, ids are in the order the rows were made');

# ---- The inserts overlapped in time.
my %win = map { my ($n, $a, $b) = split /\|/; ($n => [ $a, $b ]) } split /\n/,
  $agg->safe_psql('postgres', <<'EOS');
SELECT node, (extract(epoch FROM min(made_at)) * 1000)::bigint,
       (extract(epoch FROM max(made_at)) * 1000)::bigint FROM ev GROUP BY node ORDER BY node
EOS
my $overlap_from = (sort { $b <=> $a } map { $_->[0] } values %win)[0];
my $overlap_to = (sort { $a <=> $b } map { $_->[1] } values %win)[0];
note join '; ', map { sprintf '%s made rows for %d ms', $_, $win{$_}[1] - $win{$_}[0] } sort keys %win;
note sprintf('all three nodes were inserting for %d ms at the same time', $overlap_to - $overlap_from);
cmp_ok($overlap_to, '>', $overlap_from, 'the three inserts overlapped in time');
my $interleaved = $agg->safe_psql('postgres',
	'SELECT count(*) FROM (SELECT node <> lag(node) OVER (ORDER BY id) AS sw FROM ev) s WHERE sw');
note "node changes along id order: $interleaved";
cmp_ok($interleaved, '>', 2, "ids of the three nodes interleave ($interleaved node changes along id order)");

# ---- Cross-node time order.  Rows in id order; inversion of a row = the
# latest made_at among the rows before it minus its own made_at (> 0: it was
# made earlier than a row with a smaller id).  Also the same in the other
# direction (the ms encoded in the id, rows in made_at order), and how far
# the id's ms is from made_at (the generator's clock against the clock of
# clock_timestamp(), per node).
my ($inv_ms, $inv_rows, $idinv_ms) = split /\|/, $agg->safe_psql('postgres', <<'EOS');
WITH by_id AS (
  SELECT made_at - max(made_at) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS d
    FROM ev),
by_time AS (
  SELECT max(id >> 22) OVER (ORDER BY made_at, id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
         - (id >> 22) AS d
    FROM ev)
SELECT round(coalesce(greatest(0, -extract(epoch FROM min(d))) * 1000, 0), 3),
       count(*) FILTER (WHERE d < '0'),
       (SELECT greatest(0, coalesce(max(d), 0)) FROM by_time)
  FROM by_id
EOS
note "largest inversion in id order: $inv_ms ms of made_at, $inv_rows rows made earlier than a row with a smaller id";
note "largest inversion in made_at order: $idinv_ms ms of id time";
my $lag = $agg->safe_psql('postgres', <<'EOS');
SELECT string_agg(format('%s: %s..%s ms (mean %s)', node, lo, hi, mean), '; ' ORDER BY node) FROM (
  SELECT node, min(d) lo, max(d) hi, round(avg(d), 2) mean FROM (
    SELECT node, (extract(epoch FROM made_at) * 1000)::numeric - (p.unix_ms)::numeric AS d
      FROM ev, LATERAL snowflake_parse(id) p) s GROUP BY node) t
EOS
note "made_at minus the id's ms, per node: $lag";
cmp_ok($inv_ms, '<', 5000, "ids are k-sorted across nodes: largest inversion $inv_ms ms < 5 s");
cmp_ok($idinv_ms, '<', 5000, "... and the other way round: $idinv_ms ms < 5 s");
note "RESULT rows=150000 conflicts=0 inversion_ms=$inv_ms inverted_rows=$inv_rows idtime_inversion_ms=$idinv_ms";

$agg->safe_psql('postgres', "DROP SUBSCRIPTION sub_$_->[0]") foreach @spec;
$agg->stop;
$node{$_->[0]}->stop foreach @spec;
done_testing();
