# The lock-free id path as the server runs it (issue 10): status counters
# exact under concurrency, the state file's mark lowered to the last id's
# millisecond at a stop under load (by the postmaster, once every process is
# gone), the reserver restarting mid-load, and the choice between
# fetch-and-add and compare-and-swap made at start.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use Time::HiRes qw(usleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

my $dir = PostgreSQL::Test::Utils::tempdir();

sub conn_of
{
	my ($node) = @_;
	return 'host=' . $node->host . ' port=' . $node->port . ' dbname=postgres';
}

sub ids_of
{
	my ($file) = @_;
	open my $fh, '<', $file or die "$file: $!";
	my @ids = map { (split)[1] } grep { !/RECONNECT/ } <$fh>;
	close $fh;
	return @ids;
}

my $node = new_node('idpath');
$node->append_conf('postgresql.conf', "max_connections = 40\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');
unlike(slurp_file($node->logfile), qr/takes ids with compare-and-swap/,
	'the default layout takes ids with fetch-and-add');

# ---- Counters: every id of every session counted, the last id the largest.
my $c = start_client(conn_of($node), "$dir/counted.txt", 8, 25_000, 50);
is(finish_client($c), 0, '8 sessions x 25,000 ids: distinct, each session increasing');
my @ids = ids_of("$dir/counted.txt");
is(status($node, 'ids_issued'), scalar(@ids), 'ids_issued counts every id of every session');
is(status($node, 'last_id'), max(@ids), 'last_id is the largest id issued');

# ---- A fast stop while 8 sessions take ids: the mark is lowered to the last
# id's millisecond, not left up to a second ahead, and covers every id.
$c = start_client(conn_of($node), "$dir/stopped.txt", 8, 100_000_000, 20);
$node->poll_query_until('postgres', 'SELECT ids_issued > 400000 FROM snowflake_status')
  or die 'no load';
my $reserved_before_stop = read_state($node)->{mark_unix_ms};
$node->stop('fast');
my $stopped_at = now_unix_ms();
isnt(finish_client($c), 0, 'the sessions lost their server');
my @before_stop = ids_of("$dir/stopped.txt");
my $mark = read_state($node)->{mark_unix_ms};
cmp_ok($mark, '>=', unix_ms_of(max(@before_stop)), 'after a stop under load the mark covers every id');
cmp_ok($mark, '<=', $stopped_at, 'and is not ahead of the clock (lowered to the last id)');
cmp_ok($mark, '<=', $reserved_before_stop, 'and never above what was reserved');

$node->start;
my $after = $node->safe_psql('postgres', 'SELECT snowflake_nextval()');
cmp_ok($after, '>', max(@before_stop), 'after the restart the next id is above every id before it');

# ---- The reserver terminated while ids are issued: the postmaster restarts
# it, ids keep coming, and the marks it writes keep covering them.
my $writes0 = status($node, 'durable_writes');
$c = start_client(conn_of($node), "$dir/reserver.txt", 4, 1_500_000, 500, '--min-id', $after);
$node->poll_query_until('postgres', 'SELECT ids_issued > 200000 FROM snowflake_status')
  or die 'no load';
my $reserver = worker_pid($node, 'snowflake reserver');
ok(defined $reserver, 'the reserver runs');
kill 'TERM', $reserver;
my $back;
for (1 .. 200)
{
	$back = worker_pid($node, 'snowflake reserver');
	last if defined $back && $back != $reserver;
	usleep(50_000);
}
ok(defined $back && $back != $reserver, 'the postmaster restarted the reserver');
is(finish_client($c), 0, 'ids kept coming, distinct and increasing, through the restart');
cmp_ok(status($node, 'durable_writes'), '>', $writes0, 'the reserver kept writing marks');
my @reserver_ids = ids_of("$dir/reserver.txt");
cmp_ok(read_state($node)->{mark_unix_ms}, '>=', unix_ms_of(max(@reserver_ids)),
	'the mark covers every id');
$node->stop;

# ---- More processes than sequence numbers per millisecond: fetch-and-add
# could carry out of the counter, so the node uses compare-and-swap.
my $narrow = new_node('narrow');
$narrow->append_conf('postgresql.conf',
	"max_connections = 40\nsnowflake.sequence_bits = 5\n");
$narrow->start;
$narrow->safe_psql('postgres', 'CREATE EXTENSION snowflake');
like(slurp_file($narrow->logfile), qr/takes ids with compare-and-swap: up to \d+ processes can run out a millisecond's 32 sequence numbers/,
	'sequence_bits = 5 with 40 connections: compare-and-swap, said in the log');
$c = start_client(conn_of($narrow), "$dir/narrow.txt", 8, 20_000, 100);
is(finish_client($c), 0, 'compare-and-swap: 8 sessions x 20,000 ids, distinct and increasing');
is(status($narrow, 'ids_issued'), 160_000, 'and counted');
cmp_ok(status($narrow, 'sequence_exhaustions'), '>', 0, '32 ids per ms run out: the waits are counted');
$narrow->stop;

done_testing();
