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
#
# Second case (issue 25, D1): the all-ones identity (datacenter 31, worker
# 31: the node bits a retired word carries) with its millisecond used up.  A
# backend has read the identity and is held (by gdb, on the id path's
# compare-and-swap) with a swap prepared under 31/31; the node moves to
# worker 30 and snowflake_status shows it; then the backend goes on.  Its
# swap must fail and the id it returns carry worker 30.  (Before the fix the
# identity change left that word unchanged, the swap succeeded, and the id
# carried worker 31.)
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
# Waits up to the test timeout for a file that the gdb run $gdb touches.
# (Not named wait_for_file: PostgreSQL 19's test library exports one.)
sub wait_for_gdb_file
{
	my ($gdb, $path) = @_;
	my $deadline = time + $PostgreSQL::Test::Utils::timeout_default;
	while (!-e $path && $gdb->pumpable && time < $deadline)
	{
		$gdb->pump_nb;
		usleep(10_000);
	}
	return -e $path;
}
wait_for_gdb_file($gdb, $ready);
if (!-e $ready || $gdb_out =~ /not permitted|No symbol/)
{
	$gdb->kill_kill;
	$session->kill_kill;
	BAIL_OUT("gdb cannot hold a backend here: $gdb_out") if $ENV{CI};
	plan skip_all => "gdb cannot hold a backend here: $gdb_out";
}
usleep(200_000);    # gdb has sent "continue"
send_query('SELECT snowflake_nextval()');
if (!ok(wait_for_gdb_file($gdb, $hit), 'the backend stopped at the clock read of its id'))
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

# ---- D1: the all-ones identity with a used-up millisecond --------------------

# One sequence bit: two ids use up a millisecond.
my $ones = new_node('race_all_ones');
my @ones_conf = ('snowflake.sequence_bits = 1', 'snowflake.datacenter_id = 31');
set_case($ones, @ones_conf, 'snowflake.worker_id = 31');
$ones->start;
$ones->safe_psql('postgres', 'CREATE EXTENSION snowflake');

my ($in2, $out2, $err2) = ('', '', '');
my $session2 = IPC::Run::start(
	[ 'psql', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', $ones->connstr('postgres') ],
	'<', \$in2, '>', \$out2, '2>', \$err2,
	IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
sub send2
{
	my ($sql) = @_;
	$out2 = '';
	$in2 .= "$sql;\n\\echo __done__\n";
	$session2->pump_nb;
}
sub result2
{
	$session2->pump until $out2 =~ /__done__/;
	my ($r) = $out2 =~ /^(.*?)\n?__done__/s;
	return $r;
}
send2('SELECT pg_backend_pid()');
my $pid2 = result2();
send2('SELECT snowflake_nextval()');    # warm: the mark is reserved ahead
my $warm = result2();
is(decode_id31($warm)->{worker_id}, 31, 'the all-ones node issues ids of worker 31');

# Break on every compare-and-swap of the id word (inlined: PostgreSQL's
# pg_atomic_compare_exchange_u64_impl), and pass through each hit until the
# test arms the breakpoint; the first armed hit on the fast path (inside
# snowflake::try_fast, never under the generator lock) holds the backend
# until told to go.
my ($ready2, $armed2, $hit2, $go2) = map { $ones->basedir . "/gdb2.$_" } qw(ready armed hit go);
my $script = $ones->basedir . '/gdb2.cmd';
open my $sh, '>', $script or die $!;
print $sh <<"EOG";
set pagination off
handle all nostop noprint pass
python
import gdb, os, time
class HoldFastSwap(gdb.Breakpoint):
    def stop(self):
        if not os.path.exists("$armed2"):
            return False
        f, names = gdb.newest_frame(), []
        while f is not None and len(names) < 8:
            names.append(f.name() or "")
            f = f.older()
        if not any("try_fast" in n for n in names):
            return False
        self.enabled = False
        open("$hit2", "w").close()
        while not os.path.exists("$go2"):
            time.sleep(0.01)
        return False
HoldFastSwap("pg_atomic_compare_exchange_u64_impl")
end
shell touch $ready2
continue
EOG
close $sh;
my $gdb2_out = '';
my $gdb2 = IPC::Run::start([ 'gdb', '-q', '-nx', '-batch', '-p', $pid2, '-x', $script ],
	'>', \$gdb2_out, '2>&1', IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
if (!wait_for_gdb_file($gdb2, $ready2) || $gdb2_out =~ /not permitted|No symbol|Python scripting is not supported/)
{
	$gdb2->kill_kill;
	$session2->kill_kill;
	BAIL_OUT("gdb cannot hold a backend on its compare-and-swap here: $gdb2_out");
}
usleep(200_000);    # gdb has sent "continue"

# Two ids use up their millisecond under 31/31; the next call swaps the word
# to a later millisecond, prepared under 31/31 -- and is held there.
send2('SELECT count(*) FROM snowflake_generate(2)');
is(result2(), '2', 'two ids: the millisecond is used up');
open my $ah, '>', $armed2 or die $!;
close $ah;
send2('SELECT snowflake_nextval()');
if (!ok(wait_for_gdb_file($gdb2, $hit2), 'the backend stopped at its compare-and-swap'))
{
	$gdb2->kill_kill;
	diag("gdb: $gdb2_out");
	BAIL_OUT('the breakpoint on the compare-and-swap was not reached');
}
set_case($ones, @ones_conf, 'snowflake.worker_id = 30');
$ones->reload;
$ones->poll_query_until('postgres', 'SELECT worker_id = 30 FROM snowflake_status')
  or die 'the reload did not take effect';
open my $gh, '>', $go2 or die $!;
close $gh;
my $id2 = result2();
$session2->finish;
$gdb2->finish;    # gdb goes once the backend has exited
my $d2 = decode_id31($id2);
note "id $id2: worker $d2->{worker_id}, unix ms $d2->{unix_ms}";
is($d2->{worker_id}, 30, 'the swap prepared under 31/31 failed: the id carries worker 30');
cmp_ok($id2, '>', $warm, 'and is above the ids before it');
$ones->stop;

done_testing();

# Decodes an id of the one-sequence-bit layout.
sub decode_id31
{
	my ($id) = @_;
	return { unix_ms => ($id >> 11) + $SnowflakeTest::EPOCH_MS, worker_id => ($id >> 1) & 31,
		datacenter_id => ($id >> 6) & 31 };
}
