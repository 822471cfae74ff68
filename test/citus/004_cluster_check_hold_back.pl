# snowflake_cluster_check and the registry's hold-back (issue 32): a worker
# that takes a pair another worker retired until a time still to come is
# not reported when its registry told it so and it holds its ids back until
# then (snowflake_status.identity_not_before at or after the other's
# retired_until): its ids under the pair are all dated later.  Without the
# hold-back (no registry) the same move is reported, as 001 pins.
#
#   worker2: 3/9, its ids dated 6 s ahead of the clock (snowflake_start_above),
#     reloaded to 3/10: it retires 3/9 until about 6 s from now;
#   worker1: reloaded from 3/8 onto 3/9 at once; the registry (a server of
#     its own) answers that 3/9 is retired until then.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use lib "$FindBin::RealBin/../t";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CitusTest;
use RegistryRace qw(new_registry registry_line);

my $registry = new_registry('registry');
my $line = registry_line($registry);

my $coord = citus_node('coord', 'snowflake.datacenter_id = 3', 'snowflake.worker_id = 7');
my $w1 = citus_node('worker1', $line);
my $w2 = citus_node('worker2', $line);
set_node_conf($w1, 'snowflake.datacenter_id = 3', 'snowflake.worker_id = 8');
set_node_conf($w2, 'snowflake.datacenter_id = 3', 'snowflake.worker_id = 9');
join_cluster($coord, $w1, $w2);
$coord->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$registry->poll_query_until('postgres',
	"SELECT count(*) = 2 FROM snowflake_registry WHERE kind = 'configured'")
  or die 'the workers never reserved their pairs';

sub problems
{
	return $coord->safe_psql('postgres',
		"SELECT coalesce(string_agg(node_port || ':' || problem || ': ' || detail, '; '), '')
         FROM snowflake_cluster_check() WHERE problem IS NOT NULL");
}
sub ms_of
{
	my ($node, $column) = @_;
	return $node->safe_psql('postgres',
		"SELECT (extract(epoch FROM $column) * 1000)::bigint FROM snowflake_status");
}
sub ms_of_id
{
	my ($node) = @_;
	return $node->safe_psql('postgres',
		'SELECT (extract(epoch FROM snowflake_timestamp(min(id))) * 1000)::bigint FROM first_id');
}
is(problems(), '', 'a healthy cluster with a registry: no problem');

# ---- worker2 leaves 3/9 with ids dated ahead of the clock.
$w2->safe_psql('postgres',
	"SELECT snowflake_start_above(snowflake_make_id(now() + interval '6 s', 3, 9, 0))");
$w2->safe_psql('postgres', 'SELECT snowflake_nextval()');
set_node_conf($w2, 'snowflake.datacenter_id = 3', 'snowflake.worker_id = 10');
wait_for_identity($w2, '3|10');
my $until = ms_of($w2, 'retired_until');
$registry->poll_query_until('postgres',
	"SELECT (extract(epoch FROM retired_until) * 1000)::bigint = $until
     FROM snowflake_registry_retired WHERE (datacenter_id, worker_id) = (3, 9)")
  or die 'the registry never learned that worker2 left 3/9';

# ---- worker1 moves onto 3/9 at once, and its registry holds it back.
set_node_conf($w1, 'snowflake.datacenter_id = 3', 'snowflake.worker_id = 9');
wait_for_identity($w1, '3|9');
$w1->poll_query_until('postgres', 'SELECT identity_not_before IS NOT NULL FROM snowflake_status')
  or die 'worker1 never heard from the registry';
my $since = ms_of($w1, 'identity_since');
my $not_before = ms_of($w1, 'identity_not_before');
cmp_ok($since, '<=', $until + 1000,
	"worker1 took 3/9 before worker2's retired_until plus the margin (" . ($until - $since) . ' ms before it)');
cmp_ok($not_before, '>=', $until, "and its ids wait for that retired_until (identity_not_before)");
is(problems(), '', 'the cluster check reports nothing: the node is held back past the retirement');

# ---- Its first id under 3/9 comes once that time has passed.
$w1->safe_psql('postgres', 'CREATE TABLE first_id (id bigint)');
$w1->poll_query_until('postgres',
	'WITH i AS (INSERT INTO first_id SELECT snowflake_nextval() RETURNING 1) SELECT count(*) = 1 FROM i')
  or die 'worker1 never issued an id under 3/9';
cmp_ok(ms_of_id($w1), '>', $until, "worker1's first id under 3/9 is dated after worker2's retired_until");
is(problems(), '', 'and the cluster check still reports nothing');

$coord->stop;
$w1->stop;
$w2->stop;
$registry->stop;
done_testing();
