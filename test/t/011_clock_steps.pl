# A running server's clock stepped back 5 s, then 30 s, under each clock
# policy (issue 3, test (b)); a query waiting under `wait` cancelled by
# pg_cancel_backend and by statement_timeout.  The server runs under
# libfaketime; set_clock() steps its clock.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use Time::HiRes qw(usleep time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

my $node = new_node('steps');
start_node($node, faketime => 1);
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');

sub policy
{
	my ($policy, $bound_ms) = @_;
	reload_case($node,
		"SELECT clock_backward_policy = '$policy' AND max_clock_backward_ms = $bound_ms FROM snowflake_status",
		"snowflake.clock_backward_policy = '$policy'",
		"snowflake.max_clock_backward_ms = $bound_ms");
}

sub one_id { return $node->safe_psql('postgres', 'SELECT snowflake_nextval()'); }

sub increasing
{
	my @ids = @_;
	for my $i (1 .. $#ids) { return 0 unless $ids[$i] > $ids[ $i - 1 ]; }
	return 1;
}

# The step in "system clock moved backwards by N ms", or undef.
sub step_of { my ($err) = @_; return ($err =~ /moved backwards by (\d+) ms/)[0]; }

sub stat_row
{
	my $row = $node->safe_psql('postgres',
		'SELECT clock_backward_events, max_clock_backward_step_ms, borrowed_ahead_ms FROM snowflake_status');
	my %h;
	@h{qw(events max_step borrowed)} = split /\|/, $row;
	return \%h;
}

my ($ret, $out, $err, $secs, $by, $last, $id);

# ---- error: refused at once, the message says how far back.
set_clock($node, '+0');
policy('error', 10000);
$last = one_id();
set_clock($node, '-5');
($ret, $out, $err, $secs) = timed_psql($node, 'SELECT snowflake_nextval()');
isnt($ret, 0, 'error, 5 s step: refused');
$by = step_of($err);
ok(defined $by && $by > 3000 && $by <= 5000, 'error, 5 s step: message gives the step (' . ($by // '?') . ' ms)');
like($err, qr/DETAIL:  snowflake.clock_backward_policy is "error" \(snowflake.max_clock_backward_ms = 10000 ms\)/,
	'error: DETAIL names the policy and bound');
cmp_ok($secs, '<', 1.5, sprintf('error: refused at once (%.2f s)', $secs));
set_clock($node, '-30');
($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_nextval()');
isnt($ret, 0, 'error, 30 s step: refused');
$by = step_of($err);
ok(defined $by && $by > 28000 && $by <= 30000, 'error, 30 s step: message gives the step (' . ($by // '?') . ' ms)');
my $st = stat_row();
cmp_ok($st->{events}, '>=', 1, 'error: status counts the clock-backward event');
cmp_ok($st->{max_step}, '>', 28000,
	"error: status records the largest step seen, the 30 s one ($st->{max_step} ms)");
set_clock($node, '+0');
$id = one_id();
cmp_ok($id, '>', $last, 'error: clock restored, ids flow again above the last one');

# ---- wait (10 s bound): a 5 s step is waited out; a 30 s step errors after 10 s.
policy('wait', 10000);
$last = one_id();
set_clock($node, '-5');
($ret, $out, $err, $secs) = timed_psql($node, 'SELECT snowflake_nextval()');
is($ret, 0, 'wait, 5 s step: the id is issued');
cmp_ok($secs, '>=', 3.0, sprintf('wait, 5 s step: after waiting for the clock (%.2f s)', $secs));
cmp_ok($out, '>', $last, 'wait, 5 s step: the id is above the last one');
# Waiting until the clock is back at the last id's millisecond is enough: the
# id may share that millisecond (with a higher sequence).
cmp_ok(unix_ms_of($out), '>=', unix_ms_of($last), 'wait, 5 s step: and does not decode to an earlier time');
$last = $out;
# The clock now runs 5 s behind; step it 30 s further back.
set_clock($node, '-35');
($ret, $out, $err, $secs) = timed_psql($node, 'SELECT snowflake_nextval()');
isnt($ret, 0, 'wait, 30 s step: refused');
cmp_ok($secs, '>=', 10.0, sprintf('wait, 30 s step: after waiting the 10 s bound (%.2f s)', $secs));
cmp_ok($secs, '<', 40, 'wait, 30 s step: not much longer');
$by = step_of($err);
ok(defined $by && $by > 15000 && $by <= 30000,
	'wait, 30 s step: message gives how far behind the clock still is (' . ($by // '?') . ' ms)');
like($err, qr/DETAIL:  snowflake.clock_backward_policy is "wait" and the clock did not catch up within snowflake.max_clock_backward_ms \(10000 ms\)/,
	'wait: DETAIL names the policy and bound');
set_clock($node, '+0');
cmp_ok(one_id(), '>', $last, 'wait: clock restored, ids flow again above the last one');

# ---- borrow (10 s bound): a 5 s step is borrowed over; a 30 s step errors.
policy('borrow', 10000);
my $events0 = stat_row()->{events};
$last = one_id();
set_clock($node, '-5');
my $t_step = now_unix_ms();
my @ids = split /\n/, $node->safe_psql('postgres', 'SELECT snowflake_generate(10000)');
push @ids, one_id() for 1 .. 3;
ok(increasing($last, @ids), 'borrow, 5 s step: ids keep increasing above the last one');
cmp_ok(unix_ms_of($ids[0]), '>=', unix_ms_of($last), 'borrow, 5 s step: and do not decode to an earlier time');
$st = stat_row();
# Still borrowing only while less than the step has passed since it (a
# loaded machine can take longer over the ids).
if (now_unix_ms() - $t_step < 4000)
{
	cmp_ok($st->{borrowed}, '>', 0, "borrow, 5 s step: status shows ms borrowed ahead ($st->{borrowed} ms)");
}
else
{
	note sprintf('borrow, 5 s step: %d ms passed, the clock caught up; borrowing %s ms',
		now_unix_ms() - $t_step, $st->{borrowed});
}
cmp_ok($st->{borrowed}, '<=', 5000, 'borrow, 5 s step: at most the step');
cmp_ok($st->{events}, '>=', $events0 + 1, "borrow, 5 s step: status counts the event ($st->{events})");
cmp_ok($st->{max_step}, '>=', 4000, "borrow: largest step at least this one ($st->{max_step} ms)");
$last = $ids[-1];
set_clock($node, '-35');
($ret, $out, $err, $secs) = timed_psql($node, 'SELECT snowflake_nextval()');
isnt($ret, 0, 'borrow, 30 s step past the 10 s bound: refused');
$by = step_of($err);
# 35 s back from ids up to 5 s ahead: at least 30 s, less what the test
# took since (20 s of margin for a loaded machine, still past the bound).
ok(defined $by && $by > 20000, 'borrow, 30 s step: message gives how far ahead it would run (' . ($by // '?') . ' ms)');
like($err, qr/DETAIL:  snowflake.clock_backward_policy is "borrow" and issuing an id would run ahead of the clock by more than snowflake.max_clock_backward_ms \(10000 ms\)/,
	'borrow: DETAIL names the policy and bound');
cmp_ok($secs, '<', 1.5, sprintf('borrow: refused at once (%.2f s)', $secs));
set_clock($node, '+0');
cmp_ok(one_id(), '>', $last, 'borrow: clock restored, ids flow again above the last one');
is(stat_row()->{borrowed}, 0, 'borrow: nothing borrowed once the clock is back');

# ---- wait, cancelled: pg_cancel_backend and statement_timeout.
policy('wait', 60000);
$last = one_id();
set_clock($node, '-30');
my $bg = $node->background_psql('postgres', on_error_stop => 0);
my $pid = $bg->query_safe('SELECT pg_backend_pid()');
my $t0 = time;
$bg->query_until(qr/started/, "\\echo started\nSELECT snowflake_nextval();\n");
$node->poll_query_until('postgres',
	"SELECT state = 'active' AND wait_event_type = 'Extension' FROM pg_stat_activity WHERE pid = $pid")
  or die 'the session never waited';
ok(1, 'wait: a session is waiting for the clock');
is($node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)"), 't', 'pg_cancel_backend sent');
($out) = $bg->query('SELECT pg_backend_pid()');
$secs = time - $t0;
like($bg->{stderr}, qr/ERROR:  canceling statement due to user request/, 'pg_cancel_backend: the wait ends with the cancel error');
is($out, $pid, 'pg_cancel_backend: the backend stays alive and answers the next query');
cmp_ok($secs, '<', 30, sprintf('pg_cancel_backend: well before the 60 s bound (%.2f s)', $secs));

$bg->{stderr} = '';
$bg->query_safe("SET statement_timeout = '500ms'");
$t0 = time;
$bg->query('SELECT snowflake_nextval()');
$secs = time - $t0;
like($bg->{stderr}, qr/ERROR:  canceling statement due to statement timeout/, 'statement_timeout: the wait ends with the timeout error');
ok($secs >= 0.5 && $secs < 30, sprintf('statement_timeout: after the timeout (%.2f s)', $secs));
$bg->{stderr} = '';
is($bg->query_safe('RESET statement_timeout; SELECT pg_backend_pid()'), $pid, 'statement_timeout: the backend stays alive');
set_clock($node, '+0');
$id = $bg->query_safe('SELECT snowflake_nextval()');
cmp_ok($id, '>', $last, 'after the cancels, the same session gets an id above the last one');
$bg->quit;
cmp_ok(one_id(), '>', $id, 'and so does another session (the lock was not left held)');

$node->stop;
done_testing();
