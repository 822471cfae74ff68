# Synchronous standbys and the durable mark (issue 11, finding 2).  A commit
# waits for the synchronous standbys, but SELECT snowflake_nextval() writes no
# commit: the reserver itself waits for them to flush each mark before ids
# above the old one are issued.  Otherwise a failover to a synchronous standby
# whose clock is behind could reissue ids clients already hold.
#
# The standby's WAL receiver is frozen while a client takes ids as fast as it
# can; then the primary is killed, and the receiver too, so that the WAL it
# was sent meanwhile (still in its socket) is lost, as in a real failover.
# The standby is promoted.  Every id it issues must be above every id the
# client received.
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
sf_concurrency();  # built now, not in the timed part

my $primary = new_primary('sync_primary', 'snowflake.datacenter_id = 1', 'snowflake.worker_id = 5');
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$primary->backup('base');

my $standby = PostgreSQL::Test::Cluster->new('sync_standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
# A minute behind, and free to borrow that far: without the marks it would
# reissue the primary's recent ids.
set_case($standby, "snowflake.clock_backward_policy = 'borrow'",
	"snowflake.max_clock_backward_ms = '10min'");
set_clock($standby, '-60');
start_node($standby, faketime => 1);

$primary->append_conf('postgresql.conf', "synchronous_standby_names = 'sync_standby'\n");
$primary->reload;
$primary->poll_query_until('postgres',
	"SELECT sync_state = 'sync' FROM pg_stat_replication WHERE application_name = 'sync_standby'")
  or die 'the standby never became synchronous';
my $first = $primary->safe_psql('postgres', 'SELECT snowflake_nextval()');
$primary->wait_for_catchup($standby);

# ---- Freeze the standby's WAL receiver; take ids for ~3 s.
my $receiver = $standby->safe_psql('postgres', 'SELECT pid FROM pg_stat_wal_receiver');
ok($receiver =~ /^\d+$/ && $receiver > 0, "the standby's WAL receiver runs ($receiver)");
kill 'STOP', $receiver;

my $client = start_client($primary->connstr('postgres'), "$dir/ids.txt", 4, 100_000_000, 20);
# Ids stop once the last mark the standby confirmed (at most ~1 s ahead)
# is used up: the reserver waits for the standby to confirm the next one.
usleep(2_000_000);
my $issued_at_2s = status($primary, 'ids_issued');
usleep(1_000_000);
my $issued_at_3s = status($primary, 'ids_issued');
note "ids issued since start: $issued_at_2s after 2 s, $issued_at_3s after 3 s";
is($issued_at_3s, $issued_at_2s, 'then they stopped: no mark the standby has not confirmed is used');

crash($primary);
finish_client($client);
my @ids;
open my $fh, '<', "$dir/ids.txt" or die "$dir/ids.txt: $!";
while (<$fh>) { my (undef, $id) = split; push @ids, $id; }
close $fh;
my $primary_max = max($first, @ids);
note scalar(@ids) . " ids received by the client; the largest $primary_max (unix ms "
  . unix_ms_of($primary_max) . ')';

# ---- Failover: the receiver dies with what it was sent unread (the test
# servers run with restart_after_crash off: the standby stops, and starts
# again from the WAL it had flushed), then promotion.
kill 'KILL', $receiver;
kill 'CONT', $receiver;
foreach (1 .. 600)
{
	last unless -e $standby->data_dir . '/postmaster.pid';
	usleep(50_000);
}
$standby->_update_pid(-1);
start_node($standby, faketime => 1);
$standby->promote;
my @after = split /\n/, $standby->safe_psql('postgres', 'SELECT snowflake_generate(2000)');
my $below = grep { $_ <= $primary_max } @after;
is($below, 0, 'the promoted standby issues no id at or below one the old primary issued ('
	  . scalar(@after) . ' ids)');
cmp_ok(unix_ms_of($after[0]), '>', unix_ms_of($primary_max),
	'it carries on above the old primary\'s last id');

$standby->stop;
done_testing();
