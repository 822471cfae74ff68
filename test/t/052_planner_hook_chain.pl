# snowflake's planner hooks (time predicates: set_rel_pathlist_hook,
# get_relation_info_hook, create_upper_paths_hook) live beside the hooks of
# other preloaded libraries, in either order: with pg_stat_statements (which
# has a planner hook, counting plans with track_planning) and auto_explain
# (executor hooks) listed before and after snowflake, the natural time query
# reads the index between id bounds and keeps its condition as the filter
# (EXPLAIN, and the plan auto_explain logs), pg_stat_statements counts its
# planning and execution under the query's own text, and the results are
# the plain filter's.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $query = q{SELECT count(*) FROM hook_orders
 WHERE snowflake_timestamp(id) >= '2026-01-02 00:00:00+00' AND snowflake_timestamp(id) < '2026-01-03 00:00:00+00'};

for my $order ('pg_stat_statements,auto_explain,snowflake', 'snowflake,auto_explain,pg_stat_statements')
{
	my $node = PostgreSQL::Test::Cluster->new('hooks' . ($order =~ /^snowflake/ ? '_last' : '_first'));
	$node->init;
	$node->append_conf('postgresql.conf', <<"EOC");
shared_preload_libraries = '$order'
snowflake.worker_id = 1
pg_stat_statements.track_planning = on
auto_explain.log_min_duration = 0
max_parallel_workers_per_gather = 0
EOC
	$node->start;
	$node->safe_psql('postgres', <<'SQL');
CREATE EXTENSION snowflake;
CREATE EXTENSION pg_stat_statements;
CREATE TABLE hook_orders (id bigint PRIMARY KEY);
INSERT INTO hook_orders
SELECT snowflake_min_id(timestamptz '2026-01-01 00:00:00+00' + g * interval '1 min') FROM generate_series(0, 9999) g;
VACUUM ANALYZE hook_orders;
SQL
	my $plan = $node->safe_psql('postgres', "EXPLAIN (COSTS OFF) $query");
	like($plan, qr/Index Only Scan using hook_orders_pkey.*\n\s+Index Cond: \(\(id >= '\d+'::bigint\) AND \(id <= '\d+'::bigint\)\)\n\s+Filter: \(\(snowflake_timestamp\(id\) >= /,
		"$order: the natural query reads the index between id bounds, its condition the filter");

	$node->safe_psql('postgres', 'SELECT pg_stat_statements_reset()');
	my $offset = -s $node->logfile;
	is($node->safe_psql('postgres', $query), '1440', "$order: the rows of one day");
	is($node->safe_psql('postgres', "SET snowflake.time_predicates = off; $query"), '1440',
		"$order: the same as the plain filter");
	my $log = slurp_file($node->logfile, $offset);
	like($log, qr/duration: .* plan:.*Index Cond: \(\(id >= '\d+'::bigint\)/s,
		"$order: auto_explain logs the plan with the id bounds");
	is( $node->safe_psql(
			'postgres', q{SELECT sum(calls) || ' ' || sum(plans) FROM pg_stat_statements
			              WHERE query LIKE 'SELECT count(*) FROM hook_orders%snowflake_timestamp(id) >= $1%'}),
		'2 2',
		"$order: pg_stat_statements counts both plans and executions under the query's text");
	$node->stop;
}

done_testing();
