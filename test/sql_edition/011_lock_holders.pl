# No lock another role can hold delays the SQL edition.  A role with USAGE on
# the install schema and no right on its relations still holds, to the end
# of its transaction, the lock that parse analysis takes before any privilege
# check: PREPARE of a SELECT ... FOR UPDATE (ROW SHARE), of an INSERT, a
# DELETE or a MERGE (ROW EXCLUSIVE), a view over one (ACCESS SHARE or ROW
# SHARE), a function with a standard body that deletes from one.  With every
# one of those held on every relation of the edition at once, the node moves
# to new milliseconds, starts above an id and changes its identity, each
# within lock_timeout.  Plain script, no pg_tle needed.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use lib "$FindBin::RealBin/../t";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest qw(start_node);
use SqlEditionTest;

my $node = plain_node('lock_holders');
start_node($node);
add_role($node, 'owner1', 'CREATE SCHEMA ids AUTHORIZATION owner1');
add_role($node, 'usage_only', 'GRANT USAGE ON SCHEMA ids TO usage_only',
	'CREATE SCHEMA uo AUTHORIZATION usage_only');
install_plain($node, 'postgres', 'owner1', 'ids');
safe_psql_as($node, 'postgres', 'owner1', 'SELECT ids.snowflake_configure(worker_id => 4)');

my @rels = split /\n/, $node->safe_psql('postgres',
	"SELECT c.oid::regclass FROM pg_class c WHERE c.relnamespace = 'ids'::regnamespace "
	  . "AND c.relkind IN ('r', 'S', 'v', 'p') ORDER BY 1");
cmp_ok(scalar(@rels), '>=', 7, 'the edition\'s relations: ' . join(', ', @rels));

# Every statement that names a relation and holds its lock, each in a
# savepoint (one that fails, on a sequence say, holds nothing).
my @ways = (
	'PREPARE p%d AS SELECT 1 FROM %s FOR UPDATE',
	'PREPARE p%d AS SELECT 1 FROM %s FOR KEY SHARE',
	'PREPARE p%d AS INSERT INTO %s DEFAULT VALUES',
	'PREPARE p%d AS DELETE FROM %s',
	'PREPARE p%d AS MERGE INTO %s t USING (SELECT 1) s ON true WHEN MATCHED THEN DELETE',
	'CREATE VIEW uo.v%d AS SELECT 1 FROM %s',
	'CREATE VIEW uo.v%d AS SELECT 1 FROM %s FOR UPDATE',
	'CREATE FUNCTION uo.f%d() RETURNS void LANGUAGE sql BEGIN ATOMIC DELETE FROM %s; END',
	'LOCK TABLE %2$s IN ACCESS SHARE MODE',
	'SELECT * FROM %2$s');
my $h = open_session($node, 'postgres', 'usage_only');
my $hpid = session_do($h, 'SELECT pg_backend_pid()');
session_do($h, 'BEGIN');
my ($n, $refused) = (0, 0);
for my $rel (@rels)
{
	for my $way (@ways)
	{
		$n++;
		session_do($h, "SAVEPOINT s$n");
		my ($out, $err) = session_do($h, sprintf($way, $n, $rel));
		if ($err =~ /ERROR/)
		{
			$refused++;
			session_do($h, "ROLLBACK TO SAVEPOINT s$n");
		}
		else
		{
			session_do($h, "RELEASE SAVEPOINT s$n");
		}
	}
}
my %held = map { $_ => 1 } split /\n/, $node->safe_psql('postgres',
	"SELECT DISTINCT l.relation::regclass || ' ' || l.mode FROM pg_locks l "
	  . "JOIN pg_class c ON c.oid = l.relation WHERE l.pid = $hpid AND l.granted "
	  . "AND c.relnamespace = 'ids'::regnamespace");
for my $want ('ids.snowflake_sql_lock RowShareLock', 'ids.snowflake_sql_lock RowExclusiveLock',
	'ids.snowflake_sql_lock AccessShareLock', 'ids.snowflake_sql_config RowExclusiveLock')
{
	ok($held{$want}, "the role holds $want");
}
note(scalar(keys %held) . " locks held on the edition's relations; $refused of $n statements refused");

# Each path that takes the edition's lock, bounded by lock_timeout.
my ($ret, $out, $err) = psql_as($node, 'postgres', 'owner1',
	"SET lock_timeout = '2s'; "
	  . 'SELECT count(DISTINCT id) FROM (SELECT ids.snowflake_nextval() AS id, pg_sleep(0.002) '
	  . 'FROM generate_series(1, 100)) x');
is($ret, 0, 'ids in 100 new milliseconds while it holds them') or diag $err;
is($out, '100', '... all distinct');
($ret, $out, $err) = psql_as($node, 'postgres', 'owner1',
	"SET lock_timeout = '2s'; SELECT ids.snowflake_start_above("
	  . "(SELECT last_id FROM ids.snowflake_status) + (1::bigint << 32))");
is($ret, 0, 'snowflake_start_above') or diag $err;
($ret, $out, $err) = psql_as($node, 'postgres', 'owner1',
	"SET lock_timeout = '2s'; SELECT ids.snowflake_configure(worker_id => 5)");
is($ret, 0, 'a change of identity') or diag $err;
($ret, $out, $err) = psql_as($node, 'postgres', 'owner1',
	"SET lock_timeout = '2s'; SELECT (ids.snowflake_parse(ids.snowflake_nextval())).worker_id");
is($out, '5', '... and ids under the new identity');
session_do($h, 'ROLLBACK');
close_session($h);

$node->stop;
done_testing();
