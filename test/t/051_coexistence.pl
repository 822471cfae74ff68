# Beside other extensions that hook into the server (issue 17): snowflake
# preloaded with pg_stat_statements, auto_explain and pgaudit, first and
# last in shared_preload_libraries.  In both orders each keeps working -- a
# statement recorded by pg_stat_statements, its plan logged by auto_explain,
# an audit line written by pgaudit -- and snowflake issues ids of the
# configured node, from a DEFAULT and from a parallel query.
#
# On PostgreSQL 19, pg_plan_advice and pg_stash_advice (contrib modules that
# hook the planner too) are preloaded beside them: the plan advice is
# generated and applied to a query with a time condition, which gives the same
# rows under it, and an advice stash is made.
#
# pgaudit is Debian's postgresql-MAJOR-pgaudit package (test/lib/common.sh
# and test/lib/pgroot.sh install it); without it the test is skipped, except
# under CI, where that is a failure.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

my $probe = PostgreSQL::Test::Cluster->new('coexist_probe');
my $pkglibdir = $probe->config_data('--pkglibdir');
unless (-e "$pkglibdir/pgaudit.so")
{
	my $why = "pgaudit is not installed in $pkglibdir (Debian package postgresql-"
	  . $probe->pg_version->major . '-pgaudit)';
	plan skip_all => $why unless $ENV{CI};
	fail($why);
	done_testing();
	exit;
}
my $force = $probe->pg_version >= 16 ? 'debug_parallel_query' : 'force_parallel_mode';
my @others = ('pg_stat_statements', 'auto_explain', 'pgaudit');
my $advice = $probe->pg_version->major >= 19;
push @others, 'pg_plan_advice', 'pg_stash_advice' if $advice;

my $worker = 10;
foreach my $order ([ 'snowflake', @others ], [ @others, 'snowflake' ])
{
	my $libs = join(',', @$order);
	my $where = $order->[0] eq 'snowflake' ? 'first' : 'last';
	$worker++;
	my $node = PostgreSQL::Test::Cluster->new("coexist_$where");
	$node->init;
	$node->append_conf('postgresql.conf', <<"EOC");
shared_preload_libraries = '$libs'
snowflake.datacenter_id = 9
snowflake.worker_id = $worker
pg_stat_statements.track = all
auto_explain.log_min_duration = 0
pgaudit.log = 'read, write, ddl'
EOC
	$node->start;
	is($node->safe_psql('postgres', 'SHOW shared_preload_libraries'), $libs,
		"snowflake $where: shared_preload_libraries = '$libs'");
	$node->safe_psql('postgres', q{
CREATE EXTENSION pg_stat_statements;
CREATE EXTENSION pgaudit;
CREATE EXTENSION snowflake;
SELECT pg_stat_statements_reset();
});
	my $log_offset = -s $node->logfile;
	$node->safe_psql('postgres', q{
CREATE TABLE coexist_t (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), v int);
INSERT INTO coexist_t (v) SELECT g FROM generate_series(1, 100) g;
SELECT count(*) AS coexist_marker FROM coexist_t WHERE v > 42;
});
	# Ids taken in a parallel worker too (parallel query forced).
	my ($ret, $parallel_ids, $err) = $node->psql('postgres', qq{
SET $force = on;
SELECT count(DISTINCT p.datacenter_id || '/' || p.worker_id) || ' ' || min(p.datacenter_id)
       || '/' || min(p.worker_id) || ' ' || count(*)
FROM (SELECT snowflake_nextval() AS id FROM generate_series(1, 50)) s, snowflake_parse(s.id) p;
});
	is($parallel_ids, "1 9/$worker 50",
		"snowflake $where: ids taken under forced parallel query are of node 9/$worker")
	  or diag("psql exit $ret, stderr: $err");

	# snowflake: the DEFAULT took ids of the configured node.
	is($node->safe_psql('postgres', q{
SELECT count(DISTINCT id) || ' ' || string_agg(DISTINCT p.datacenter_id || '/' || p.worker_id, ',')
FROM coexist_t, snowflake_parse(id) p}),
		"100 9/$worker", "snowflake $where: 100 distinct ids of node 9/$worker");
	is($node->safe_psql('postgres', 'SELECT datacenter_id || \'/\' || worker_id FROM snowflake_status'),
		"9/$worker", "snowflake $where: snowflake_status shows the configured node");

	# pg_stat_statements recorded the statements, the id-taking INSERT too.
	is($node->safe_psql('postgres', q{
SELECT string_agg(calls || ' ' || rows, ',' ORDER BY query) FROM pg_stat_statements
WHERE query LIKE '%coexist_marker%' OR query LIKE 'INSERT INTO coexist_t%'}),
		'1 100,1 1', "snowflake $where: pg_stat_statements recorded the INSERT and the SELECT");

	my $log = slurp_file($node->logfile, $log_offset);
	# auto_explain logged the plan of the SELECT.
	like($log, qr/LOG:  duration: [0-9.]+ ms  plan:\n\s*Query Text: .*coexist_marker.*\n(?:.*\n)*?\s*Aggregate/,
		"snowflake $where: auto_explain logged the SELECT's plan");
	# pgaudit wrote audit lines: DDL, the write and the read.
	like($log, qr/AUDIT: SESSION,\d+,\d+,DDL,CREATE TABLE,.*coexist_t/,
		"snowflake $where: pgaudit logged the CREATE TABLE");
	like($log, qr/AUDIT: SESSION,\d+,\d+,WRITE,INSERT,.*coexist_t/,
		"snowflake $where: pgaudit logged the INSERT");
	like($log, qr/AUDIT: SESSION,\d+,\d+,READ,SELECT,.*coexist_marker/,
		"snowflake $where: pgaudit logged the SELECT");
	advice_checks($node, $where) if $advice;
	unlike($log, qr/ERROR|FATAL|PANIC/, "snowflake $where: no error in the server log");
	$node->stop;
}

# pg_plan_advice generates advice for, and applies advice to, a query with a
# time condition (the ids' time: within the last day, so every row), whose
# rows stay the same; pg_stash_advice makes a stash.
sub advice_checks
{
	my ($node, $where) = @_;
	my $query = q{SELECT count(*) FROM coexist_t WHERE snowflake_timestamp(id) >= now() - interval '1 day'};
	like($node->safe_psql('postgres', "EXPLAIN (COSTS OFF, PLAN_ADVICE) $query"),
		qr/Generated Plan Advice:\n.*\b(SEQ_SCAN|INDEX_SCAN|INDEX_ONLY_SCAN|BITMAP_HEAP_SCAN)\(coexist_t\b/s,
		"snowflake $where: pg_plan_advice generates advice for a time query");
	is($node->safe_psql('postgres', $query), '100', "snowflake $where: the time query's rows");
	my $supplied = "SET pg_plan_advice.advice = 'SEQ_SCAN(coexist_t)';";
	like($node->safe_psql('postgres', "$supplied EXPLAIN (COSTS OFF) $query"),
		qr{Seq Scan on coexist_t(?:.*\n)*.*Supplied Plan Advice:\n\s*SEQ_SCAN\(coexist_t\) /\* matched \*/},
		"snowflake $where: pg_plan_advice applies supplied advice to a time query");
	is($node->safe_psql('postgres', "$supplied $query"), '100',
		"snowflake $where: the time query's rows under supplied advice");
	is($node->safe_psql('postgres', q{
CREATE EXTENSION pg_stash_advice;
SELECT pg_create_advice_stash('coexist');
SELECT stash_name FROM pg_get_advice_stashes();
DROP EXTENSION pg_stash_advice;}), "\ncoexist", "snowflake $where: pg_stash_advice makes a stash");
}

done_testing();
