# WAL redo checks the epoch and layout a mark was issued under (issue 11,
# finding 3), as a start against the state file does.  A standby built before
# the first id has no state file to check at start; configured with a later
# epoch or other widths (Debian keeps postgresql.conf outside the data
# directory, so a base backup does not bring the primary's), it must refuse
# to replay the primary's marks rather than become a primary whose ids
# collide with the old one's.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use Time::HiRes qw(usleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

my $primary = new_primary('layout_primary', 'snowflake.worker_id = 5');
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$primary->backup('base');
ok(!-e $primary->backup_dir . '/base/snowflake.state', 'the base backup has no state file yet');

my $epoch = $SnowflakeTest::EPOCH_MS;

sub standby_with
{
	my ($name, @lines) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init_from_backup($primary, 'base', has_streaming => 1);
	set_case($node, @lines);
	$node->start;
	return $node;
}

# Waits until the node's log matches, or the wait times out.
sub wait_for_log
{
	my ($node, $pattern) = @_;
	foreach (1 .. 600)
	{
		my $log = slurp_file($node->logfile);
		return $log if $log =~ $pattern;
		usleep(50_000);
	}
	return slurp_file($node->logfile);
}

my $later = standby_with('later_epoch', 'snowflake.epoch = ' . ($epoch + 86_400_000));
my $wider = standby_with('other_widths', 'snowflake.sequence_bits = 11');
my $earlier = standby_with('earlier_epoch', 'snowflake.epoch = ' . ($epoch - 86_400_000));

# The primary's first id writes its first mark to the WAL.
my $primary_id = $primary->safe_psql('postgres', 'SELECT max(x) FROM snowflake_generate(1000) x');

my $log = wait_for_log($later, qr/FATAL:  snowflake.epoch differs/);
like($log, qr/FATAL:  snowflake.epoch differs from the value the ids in the WAL were issued under/,
	'a standby with a later epoch refuses to replay the mark, naming snowflake.epoch');
like($log, qr/DETAIL:  A snowflake mark in the WAL records epoch $epoch and layout 5\/5\/12/,
	'... with the recorded epoch and layout');
$log = wait_for_log($wider, qr/FATAL:  snowflake.sequence_bits differs/);
like($log, qr/FATAL:  snowflake.sequence_bits differs from the value the ids in the WAL were issued under/,
	'a standby with other widths refuses, naming snowflake.sequence_bits');
foreach my $node ($later, $wider)
{
	# The startup process's FATAL shuts the server down.
	foreach (1 .. 600)
	{
		last unless -e $node->data_dir . '/postmaster.pid';
		usleep(50_000);
	}
	ok(!-e $node->data_dir . '/postmaster.pid', $node->name . ' shut down rather than carry on');
	$node->_update_pid(-1);
}
ok(!-e $later->data_dir . '/snowflake.state', 'no state file was written under the wrong epoch');

# An earlier epoch only makes ids larger: replayed, and after promotion its
# ids are above the primary's.
$primary->wait_for_catchup($earlier);
$primary->stop;
$earlier->promote;
my $after = $earlier->safe_psql('postgres', 'SELECT snowflake_nextval()');
cmp_ok($after, '>', $primary_id, 'a standby with an earlier epoch replays, and its ids are above the primary\'s');

$earlier->stop;
done_testing();
