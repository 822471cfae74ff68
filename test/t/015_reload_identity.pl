# The node identity never changes by omission (issue 11, finding 11): a
# reload after snowflake.worker_id or snowflake.datacenter_id was removed
# from the configuration keeps the running identity and says so in a
# WARNING; only an explicit value changes it.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

my $node = new_node('reload_identity');
# The identity only in the per-case file, so that removing it there removes
# it from the configuration.
$node->adjust_conf('postgresql.conf', 'snowflake.worker_id', undef);
$node->adjust_conf('postgresql.conf', 'snowflake.datacenter_id', undef);
set_case($node, 'snowflake.worker_id = 5', 'snowflake.datacenter_id = 3');
# A crash restarts the server (the test framework turns that off).
$node->append_conf('postgresql.conf', 'restart_after_crash = on');
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');

sub node_of
{
	my $id = $node->safe_psql('postgres', 'SELECT snowflake_nextval()');
	my $d = decode_id($id);
	return "$d->{datacenter_id}/$d->{worker_id}";
}

# Reloads and waits until the postmaster has logged what it did with it.
sub reload_and_wait_for
{
	my ($pattern, @lines) = @_;
	my $offset = -s $node->logfile;
	set_case($node, @lines);
	$node->reload;
	my $log = '';
	foreach (1 .. 300)
	{
		$log = slurp_file($node->logfile, $offset);
		last if $log =~ $pattern;
		usleep(50_000);
	}
	return $log;
}
use Time::HiRes qw(usleep);

is(node_of(), '3/5', 'ids carry datacenter 3, worker 5');

# ---- worker_id removed: kept, with a WARNING.
my $log = reload_and_wait_for(qr/keeps snowflake.worker_id/, 'snowflake.datacenter_id = 3');
like($log, qr/WARNING:  snowflake.worker_id was removed from the configuration; the node keeps snowflake.worker_id = 5/,
	'removing worker_id: a WARNING names the setting and the value kept');
is($node->safe_psql('postgres', 'SHOW snowflake.worker_id'), '5', 'SHOW still gives 5');
is(status($node, 'worker_id'), '5', 'snowflake_status still gives 5');
is(status($node, 'identity_source'), 'kept', 'and says the configured identity is kept');
is(node_of(), '3/5', 'ids still carry worker 5');
# The setting itself is at its default now (PostgreSQL says so in the log):
# what keeps the identity is the node, at every reload, and it says so each
# time.
$log = reload_and_wait_for(qr/keeps snowflake.worker_id/, 'snowflake.datacenter_id = 3');
like($log, qr/WARNING:  snowflake.worker_id was removed from the configuration; the node keeps snowflake.worker_id = 5/,
	'the WARNING comes again at the next reload');
is(node_of(), '3/5', 'ids still carry worker 5 after a second reload');
# New sessions and parallel workers start with the setting at its default:
# they neither fail nor change the identity.
my $force_parallel = $node->pg_version >= 16 ? 'debug_parallel_query' : 'force_parallel_mode';
is($node->safe_psql('postgres', <<"EOS"), '3/5|t', 'a parallel query in a new session runs, and ids keep 3/5');
SET $force_parallel = on;
SELECT (SELECT datacenter_id || '/' || worker_id FROM snowflake_status), count(*) > 0 FROM pg_class;
EOS

# ---- datacenter_id removed: kept (not moved to datacenter 0), with a WARNING.
$log = reload_and_wait_for(qr/keeps snowflake.datacenter_id/, 'snowflake.worker_id = 5');
like($log, qr/WARNING:  snowflake.datacenter_id was removed from the configuration; the node keeps snowflake.datacenter_id = 3/,
	'removing datacenter_id: a WARNING names the setting and the value kept');
is($node->safe_psql('postgres', 'SHOW snowflake.datacenter_id'), '3', 'SHOW still gives 3');
is(node_of(), '3/5', 'ids still carry datacenter 3, not 0');

# ---- Both removed at once, by ALTER SYSTEM RESET of a value set there.
$node->safe_psql('postgres', 'ALTER SYSTEM SET snowflake.worker_id = 6');
reload_and_wait_for(qr/./, 'snowflake.datacenter_id = 3', 'snowflake.worker_id = 5');
$node->poll_query_until('postgres', 'SELECT worker_id = 6 FROM snowflake_status') or die;
is(node_of(), '3/6', 'ALTER SYSTEM SET: an explicit value applies');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET snowflake.worker_id');
$log = reload_and_wait_for(qr/keeps snowflake.worker_id = 6/);
like($log, qr/WARNING:  snowflake.worker_id was removed from the configuration; the node keeps snowflake.worker_id = 6/,
	'ALTER SYSTEM RESET with the file lines gone: worker_id kept');
like($log, qr/WARNING:  snowflake.datacenter_id was removed from the configuration; the node keeps snowflake.datacenter_id = 3/,
	'... and datacenter_id kept');
is(node_of(), '3/6', 'ids still carry 3/6');

# ---- A crash restart keeps it too: snowflake.state records the identity
# in use.
my $offset = -s $node->logfile;
kill 'KILL', worker_pid($node, 'autovacuum launcher');
$node->wait_for_log(qr/database system is ready to accept connections/, $offset);
like(slurp_file($node->logfile, $offset), qr/after the crash restart the node keeps datacenter_id 3 worker_id 6/,
	'after a crash restart the log says the node keeps 3/6');
is(node_of(), '3/6', 'and ids still carry 3/6');
is(status($node, 'identity_source'), 'kept', '... kept, as the status says');

# ---- Explicit values still change it, -1 included.
reload_and_wait_for(qr/./, 'snowflake.worker_id = 9', 'snowflake.datacenter_id = 2');
$node->poll_query_until('postgres', 'SELECT worker_id = 9 AND datacenter_id = 2 FROM snowflake_status')
  or die 'explicit values not applied';
is(node_of(), '2/9', 'explicit new values apply');
reload_and_wait_for(qr/./, 'snowflake.worker_id = -1', 'snowflake.datacenter_id = 2');
$node->poll_query_until('postgres', 'SELECT worker_id IS NULL FROM snowflake_status')
  or die 'explicit -1 not applied';
my ($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/ERROR:  snowflake.worker_id is not set/, 'an explicit -1 unsets the worker id');

$node->stop;
done_testing();
