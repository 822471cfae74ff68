# A node with snowflake.registry issues no id under a pair its registry has
# not confirmed since its last start or change of identity (issue 32, item
# 1): here a pair still held by a live node, with a slow registry.
#
#   node A: configured with 0/5 and the registry; issues ids all along;
#   node B: configured with 0/6, reloaded onto 0/5 while the registry's
#     table is locked (the registry answers only 4 s later): its ids wait
#     for the answer, which is a refusal, and fail.  B issues no id under
#     0/5, so A and B have no equal id.
#
# Before issue 32, B issued ids under 0/5 at once after the reload, until
# the refusal arrived: tens of thousands in 4 s, many equal to A's.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use Time::HiRes qw(time usleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;
use RegistryRace;

my $registry = new_registry('confirm_registry');
my $line = registry_line($registry);

my $a = new_node('confirm_a');
set_case($a, 'snowflake.datacenter_id = 0', 'snowflake.worker_id = 5', $line);
$a->start;
$a->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $b = new_node('confirm_b');
set_case($b, 'snowflake.datacenter_id = 0', 'snowflake.worker_id = 6', $line);
$b->start;
$b->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$registry->poll_query_until('postgres',
	"SELECT count(*) = 2 FROM snowflake_registry WHERE kind = 'configured'")
  or die 'the nodes never reserved their pairs';
cmp_ok($b->safe_psql('postgres', 'SELECT count(*) FROM snowflake_generate(10)'), '==', 10,
	'B issues ids under its own pair 0/6');

# ---- A issues ids all along; the registry stops answering; B moves to 0/5.
my $ca = start_collect($a, 9, 'a');
$a->poll_query_until('postgres', 'SELECT ids_issued > 1000 FROM snowflake_status')
  or die 'A issues no ids';
my $lock = lock_registry($registry);
my $t_lock = time;
set_case($b, 'snowflake.datacenter_id = 0', 'snowflake.worker_id = 5', $line);
$b->reload;
$b->poll_query_until('postgres', 'SELECT worker_id = 5 FROM snowflake_status')
  or die 'the reload did not take effect';
my $cb = start_collect($b, 6, 'b');
usleep(4_000_000 - int((time - $t_lock) * 1e6)) if time - $t_lock < 4;
unlock_registry($lock);
my ($ids_b, $errs_b) = finish_collect($cb);
my ($ids_a, $errs_a) = finish_collect($ca);

note 'A issued ' . scalar(@$ids_a) . ' ids, B ' . scalar(@$ids_b) . '; B\'s errors: '
  . join(' | ', @$errs_b);
cmp_ok(scalar(@$ids_a), '>', 1000, 'A issued ids all along');
is(scalar(ids_of_pair($ids_b, 0, 5)), 0, 'B issued no id under 0/5, before or after the refusal');
is(equal_ids($ids_a, $ids_b), 0, 'no id of B equals one of A');
ok((grep { /the snowflake registry refuses datacenter_id 0 worker_id 5 to this node/ } @$errs_b),
	'B\'s ids failed with the registry\'s refusal once it answered');

# ---- The wait is bounded: with the registry locked, an id of a node that
# moves to a pair waits snowflake.registry_wait_timeout, then fails saying
# what it waits for.
$b->append_conf('postgresql.conf', 'snowflake.registry_wait_timeout = 1500');
set_case($b, 'snowflake.datacenter_id = 0', 'snowflake.worker_id = 7', $line);
$lock = lock_registry($registry);
$b->reload;
$b->poll_query_until('postgres', 'SELECT worker_id = 7 FROM snowflake_status')
  or die 'the reload did not take effect';
my ($ret, $out, $err, $secs) = timed_psql($b, 'SELECT snowflake_nextval()');
unlock_registry($lock);
isnt($ret, 0, 'an id fails while the registry does not answer');
like($err, qr/snowflake ids under datacenter_id 0 worker_id 7 wait for the registry to confirm the pair to this node/,
	'the error says what it waits for');
like($err, qr/DETAIL:  The registry \(host=\S+ port=\d+ dbname=postgres\) has not confirmed it since this node's start or last change of identity; waited 1500 ms \(snowflake.registry_wait_timeout\)/,
	'the DETAIL names the registry and the setting');
like($err, qr/HINT:  No id is issued under a pair the registry has not confirmed/, 'with a HINT');
cmp_ok($secs, '>=', 1.4, "it waited ($secs s)");
$b->poll_query_until('postgres', 'SELECT count(*) = 1 FROM (SELECT snowflake_nextval()) s')
  or die 'B never issued under 0/7 once the registry answered';
pass('once the registry confirms 0/7, B issues ids under it');

$_->stop foreach ($a, $b, $registry);
done_testing();
