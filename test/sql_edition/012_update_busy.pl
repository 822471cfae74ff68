# Updating the SQL edition on a busy server: the update takes its locks
# without waiting in the lock queue, so a session left open on the edition
# (a reader of snowflake_status in a long transaction) makes the update fail
# after snowflake_sql.update_lock_wait, naming that session, with nothing
# changed; meanwhile every other session goes on making ids and reading the
# status, none queued behind the update.  Once the reader is gone the update
# runs.  Plain script, no pg_tle needed.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use lib "$FindBin::RealBin/../t";
use IPC::Run;
use Time::HiRes qw(time sleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest qw(start_node);
use SqlEditionTest;

my $node = plain_node('update_busy');
start_node($node);
add_role($node, 'owner1', 'CREATE SCHEMA ids AUTHORIZATION owner1');
add_role($node, 'app');
install_plain($node, 'postgres', 'owner1', 'ids');
safe_psql_as($node, 'postgres', 'owner1', 'SELECT ids.snowflake_configure(worker_id => 6)');
safe_psql_as($node, 'postgres', 'owner1', doc_block('app-grants.sql'));

my $defs = "SELECT md5(string_agg(p.oid::regprocedure::text || pg_get_functiondef(p.oid), '' ORDER BY 1)) "
  . "FROM pg_proc p WHERE p.pronamespace = 'ids'::regnamespace";
my $before = $node->safe_psql('postgres', $defs);

# A reader with a transaction left open.
my $reader = open_session($node, 'postgres', 'app');
my $rpid = session_do($reader, 'SELECT pg_backend_pid()');
session_do($reader, 'BEGIN');
session_do($reader, 'SELECT count(*) FROM ids.snowflake_status');

# The update, with 3 s to take its locks.
my ($uout, $uerr) = ('', '');
my $t0 = time;
my $update = IPC::Run::start(
	[ $node->installed_command('psql'), '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'),
	  '-U', 'owner1', '-c', 'SET search_path = ids', '-c', 'SET snowflake_sql.update_lock_wait = 3000',
	  '-f', dist_file('snowflake_sql.sql') ],
	'>', \$uout, '2>', \$uerr, IPC::Run::timeout(60));
sleep 0.5;
# Meanwhile: other sessions, each bounded by lock_timeout.
my ($ret, $out, $err);
for my $i (1 .. 5)
{
	($ret, $out, $err) = psql_as($node, 'postgres', 'app',
		"SET lock_timeout = '1s'; SELECT ids.snowflake_nextval() > 0, worker_id FROM ids.snowflake_status");
	last if $ret != 0;
	sleep 0.3;
}
is($ret, 0, 'while the update tries, a new session makes ids and reads the status') or diag $err;
is($out, "t|6", '... under the node\'s identity');
my $finished = eval { $update->finish; 1 };
$update->kill_kill unless $finished;
my $took = time - $t0;
ok($finished && $update->result != 0, 'the update fails (does not wait on)');
like($uerr, qr/could not lock the edition's relations within 3000 ms/, '... saying it could not take its locks');
like($uerr, qr/pid $rpid \(role app\b.*\) holds AccessShareLock on ids\.snowflake_status/,
	'... and naming the session that holds one');
cmp_ok($took, '<', 30, sprintf('... after %.1f s', $took));
is($node->safe_psql('postgres', $defs), $before, 'nothing was changed');

# The reader gone, the update runs.
session_do($reader, 'COMMIT');
close_session($reader);
install_plain($node, 'postgres', 'owner1', 'ids');
cmp_ok(safe_psql_as($node, 'postgres', 'app', 'SELECT ids.snowflake_nextval()'), '>', 0,
	'with the reader gone the update runs, and ids go on');

$node->stop;
done_testing();
