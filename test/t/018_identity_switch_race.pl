# An identity reload against an id being taken (issue 17, finding 10): a
# backend that loaded the id word and is descheduled before it reads the
# clock must not issue an id of the old identity once the reload has
# happened.  The descheduling is made real with gdb: a breakpoint on the id
# path's clock read holds the backend while the node moves from worker 25 to
# worker 26 and snowflake_status shows 26; then the backend goes on.
#
# The id it returns must carry worker 26.  (Before the fix it carried 25,
# timestamped after the switch: the fast path had read the identity before
# the clock, and nothing made its prepared swap fail.)
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use IPC::Run;
use Time::HiRes qw(time usleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

# The suite installs gdb; only a run by hand may lack it.
if (system('gdb --version >/dev/null 2>&1') != 0)
{
	BAIL_OUT('gdb is not installed (Debian package gdb)') if $ENV{CI};
	plan skip_all => 'gdb is not installed (Debian package gdb)';
}

my $node = new_node('race');
set_case($node, 'snowflake.worker_id = 25');
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');

# A session whose statements we send one at a time.
my ($in, $out, $err) = ('', '', '');
my $session = IPC::Run::start(
	[ 'psql', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres') ],
	'<', \$in, '>', \$out, '2>', \$err,
	IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
sub send_query
{
	my ($sql) = @_;
	$out = '';
	$in .= "$sql;\n\\echo __done__\n";
	$session->pump_nb;
}
sub result
{
	$session->pump until $out =~ /__done__/;
	my ($r) = $out =~ /^(.*?)\n?__done__/s;
	return $r;
}
send_query('SELECT pg_backend_pid()');
my $pid = result();
# Warm: the word holds this millisecond and the mark is reserved ahead.
send_query('SELECT snowflake_nextval()');
my $before = result();
is(decode_id($before)->{worker_id}, 25, 'ids carry worker 25');

# Hold the backend at its next clock read.
my $ready = $node->basedir . '/gdb.ready';
my $hit = $node->basedir . '/gdb.hit';
my $go = $node->basedir . '/gdb.go';
my $gdb_out = '';
# Signals PostgreSQL sends a backend pass through without stopping it.
my $gdb = IPC::Run::start(
	[ 'gdb', '-q', '-nx', '-batch', '-p', $pid,
	  '-ex', 'handle all nostop noprint pass',
	  '-ex', 'break sfpg::id_clock_unix_ms',
	  '-ex', "shell touch $ready",
	  '-ex', 'continue',
	  '-ex', "shell touch $hit; while [ ! -e $go ]; do sleep 0.01; done",
	  '-ex', 'detach' ],
	'>', \$gdb_out, '2>&1', IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
# Waits up to the test timeout for a file gdb touches.
sub wait_for_file
{
	my ($path) = @_;
	my $deadline = time + $PostgreSQL::Test::Utils::timeout_default;
	while (!-e $path && $gdb->pumpable && time < $deadline)
	{
		$gdb->pump_nb;
		usleep(10_000);
	}
	return -e $path;
}
wait_for_file($ready);
if (!-e $ready || $gdb_out =~ /not permitted|No symbol/)
{
	$gdb->kill_kill;
	$session->kill_kill;
	BAIL_OUT("gdb cannot hold a backend here: $gdb_out") if $ENV{CI};
	plan skip_all => "gdb cannot hold a backend here: $gdb_out";
}
usleep(200_000);    # gdb has sent "continue"
send_query('SELECT snowflake_nextval()');
if (!ok(wait_for_file($hit), 'the backend stopped at the clock read of its id'))
{
	$gdb->kill_kill;    # detaches: the backend goes on
	diag("gdb: $gdb_out");
	BAIL_OUT('the breakpoint on sfpg::id_clock_unix_ms was not reached');
}

# The reload, while it waits there.
set_case($node, 'snowflake.worker_id = 26');
$node->reload;
$node->poll_query_until('postgres', 'SELECT worker_id = 26 FROM snowflake_status')
  or die 'the reload did not take effect';
my $switched_ms = now_unix_ms();

open my $fh, '>', $go or die "$go: $!";
close $fh;
$gdb->finish;
my $id = result();
$session->finish;
my $d = decode_id($id);
note "id $id: worker $d->{worker_id}, unix ms $d->{unix_ms}; status showed worker 26 at $switched_ms";
is($d->{worker_id}, 26, 'the id taken across the reload carries the new worker id');
cmp_ok($id, '>', $before, 'and is above the id before it');

$node->stop;
done_testing();
