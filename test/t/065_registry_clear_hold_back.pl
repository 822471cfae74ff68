# A hold-back is bounded, and the registry's owner can clear a mistaken one
# (issue 43, item 1).
#
#   node A, configured 0/7 with a registry;
#   the registry's table says 0/7 is retired until 9999 (written by hand:
#     the registry's own functions cap a report at 10 minutes): A, restarted,
#     holds its ids back no further than 10 minutes past the registry's
#     clock, and says so;
#   the owner clears the hold-back (snowflake_registry_clear_hold_back):
#     A, at its next reservation, drops it, records that in snowflake.state,
#     and issues ids again.
#
# Before, a node took any time a registry said (until 9999), kept it in
# snowflake.state, and nothing but a new identity lifted it.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;
use RegistryRace;

my $registry = new_registry('clear_registry');
my $line = registry_line($registry);
sub reg { return $registry->safe_psql('postgres', $_[0]); }

my $a = new_node('clear_a');
set_case($a, 'snowflake.datacenter_id = 0', 'snowflake.worker_id = 7', $line,
	'snowflake.registry_wait_timeout = 500');
$a->start;
$a->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$registry->poll_query_until('postgres',
	"SELECT kind = 'configured' FROM snowflake_registry WHERE (datacenter_id, worker_id) = (0, 7)")
  or die 'A never reserved 0/7';
$a->poll_query_until('postgres', 'SELECT count(*) = 1 FROM (SELECT snowflake_nextval()) s')
  or die 'A issues no ids';

# ---- A retirement until 9999, written into the registry's table by hand.
reg(q{INSERT INTO snowflake_registry_retired (datacenter_id, worker_id, retired_until, node_key)
      VALUES (0, 7, '9999-01-01', 'gone:x:1')});
$a->restart;
$a->poll_query_until('postgres', 'SELECT identity_not_before IS NOT NULL FROM snowflake_status')
  or die 'A never learned the hold-back';
my $ahead = $a->safe_psql('postgres',
	'SELECT extract(epoch FROM identity_not_before - now())::int FROM snowflake_status');
cmp_ok($ahead, '<=', 601, "A holds its ids back no further than 10 minutes ahead ($ahead s), not until 9999");
cmp_ok($ahead, '>', 500, '... but as far as that');
my ($ret, $out, $err) = $a->psql('postgres', 'SELECT snowflake_nextval()');
isnt($ret, 0, 'A issues no id meanwhile');
like($err, qr/are held back until/, 'and says until when');
isnt(read_state($a)->{identity_not_before_unix_ms}, '-1', 'snowflake.state keeps the hold-back');

# ---- The owner clears it: A follows at its next reservation.
my $cleared = reg('SELECT snowflake_registry_clear_hold_back(0, 7) IS NOT NULL');
is($cleared, 't', 'the owner clears the hold-back (the time it cleared is returned)');
$a->restart;
$a->poll_query_until('postgres', 'SELECT count(*) = 1 FROM (SELECT snowflake_nextval()) s')
  or die 'A never went on';
pass('A issues ids again after the owner cleared the hold-back');
is($a->safe_psql('postgres', 'SELECT identity_not_before IS NULL FROM snowflake_status'), 't',
	'snowflake_status shows no hold-back');
$a->poll_query_until('postgres',
	q{SELECT pg_read_file('snowflake.state') LIKE '%identity_not_before_unix_ms -1%'})
  or die 'snowflake.state still holds the hold-back';
pass('snowflake.state no longer holds it, so a restart does not either');
$a->restart;
$a->poll_query_until('postgres', 'SELECT count(*) = 1 FROM (SELECT snowflake_nextval()) s')
  or die 'A issues no ids after a restart';
pass('and after a restart A issues ids');

$a->stop;
$registry->stop;
done_testing();
