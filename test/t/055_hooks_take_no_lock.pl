# The planner hooks read no catalog and take no lock that the statement would
# not take without the library.  While another session holds pg_extension or
# pg_depend (a LOCK TABLE, a REINDEX or a CLUSTER left in an open
# transaction), a new session of a server that preloads snowflake still
# plans and runs, within a 3 s statement_timeout: SELECT 1, a query on a
# table with an index, a query on a partitioned table, and (where the
# extension is installed) the natural time query, whose functions are found
# through the syscache of pg_proc the planner itself reads.  Tried in a
# database with the extension and one without it.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

my $node = new_node('no_lock');
$node->start;

my $tables = q{
CREATE TABLE plain_t (a int PRIMARY KEY, b text);
INSERT INTO plain_t SELECT g, g::text FROM generate_series(1, 1000) g;
CREATE TABLE part_t (id bigint NOT NULL, PRIMARY KEY (id)) PARTITION BY RANGE (id);
CREATE TABLE part_t_1 PARTITION OF part_t FOR VALUES FROM (0) TO (1000);
CREATE TABLE part_t_2 PARTITION OF part_t FOR VALUES FROM (1000) TO (2000);
INSERT INTO part_t SELECT g FROM generate_series(0, 1999) g;
ANALYZE;
};
$node->safe_psql('postgres', 'CREATE DATABASE with_ext; CREATE DATABASE without_ext;');
$node->safe_psql('with_ext', "CREATE EXTENSION snowflake;\n$tables");
$node->safe_psql('without_ext', $tables);

my %queries = (
	'SELECT 1' => ['SELECT 1', '1'],
	'a query on a table with an index' => ['SELECT b FROM plain_t WHERE a = 7', '7'],
	'a query on a partitioned table' => ['SELECT count(*) FROM part_t WHERE id >= 500', '1500'],);
my %time_queries = (
	'the natural time query' => [
		q{SELECT count(*) FROM part_t WHERE snowflake_timestamp(id) >= now() - interval '1 day'}, '0'],
	'id <@ a range' => [
		q{SELECT count(*) FROM plain_t WHERE a::bigint <@ tstzrange(now() - interval '1 day', now())}, '0'],);

my @blockers = (
	[ 'LOCK TABLE pg_extension', 'LOCK TABLE pg_catalog.pg_extension IN ACCESS EXCLUSIVE MODE' ],
	[ 'LOCK TABLE pg_depend', 'LOCK TABLE pg_catalog.pg_depend IN ACCESS EXCLUSIVE MODE' ],
	[ 'REINDEX TABLE pg_depend', 'REINDEX TABLE pg_catalog.pg_depend' ],
	[ 'CLUSTER pg_depend', 'CLUSTER pg_catalog.pg_depend USING pg_depend_depender_index' ],);
# (A REINDEX or CLUSTER of pg_extension is left out: it stops every new
# session of the database at its start, in PostgreSQL's own catalog caches,
# with or without the library.  VACUUM FULL cannot run in a transaction
# block; CLUSTER takes the same locks.)

foreach my $db ('with_ext', 'without_ext')
{
	my %all = (%queries, $db eq 'with_ext' ? %time_queries : ());
	foreach my $b (@blockers)
	{
		my ($what, $sql) = @$b;
		my $holder = $node->background_psql($db);
		$holder->query_safe("BEGIN; $sql;");
		foreach my $name (sort keys %all)
		{
			my ($query, $expect) = @{ $all{$name} };
			# A new session each time: nothing cached in it yet.
			my ($ret, $out, $err) = $node->psql($db, "SET statement_timeout = '3s';\n$query");
			is($ret . ' ' . $out . $err, "0 $expect", "$db, $what held: $name");
		}
		$holder->query_safe('ROLLBACK');
		$holder->quit;
	}
}

$node->stop;
done_testing();
