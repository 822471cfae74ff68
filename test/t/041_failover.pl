# Physical standby failover (issue 6, item 2): a streaming standby, made with
# pg_basebackup and so sharing the primary's snowflake settings, runs with its
# clock 10 s behind the primary's.  It replays the primary's WAL-logged
# high-water marks; after the primary stops and the standby is promoted, it
# never issues an id at or below one the old primary issued: each call
# either errors (the clock policy refuses to run that far ahead of the clock)
# or issues ids above all of the old primary's.
#
# Control: a copy of the same base backup that does not stream (so never
# replays the marks written after the backup), started as a primary with the
# same lagging clock, does issue ids below the old primary's -- which is what
# the replayed mark prevents.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use Time::HiRes qw(usleep time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

my $LAG_MS = 10_000;

sub strictly_increasing
{
	my @ids = @_;
	for my $i (1 .. $#ids) { return 0 unless $ids[$i] > $ids[ $i - 1 ]; }
	return 1;
}

# The server's clock minus the real one, in ms, as (low, high): the server
# reads its clock somewhere between our two readings.
sub clock_offset
{
	my ($node) = @_;
	my $before = now_unix_ms();
	my $server = server_unix_ms($node);
	my $after = now_unix_ms();
	return ($server - $after, $server - $before);
}

# pg_settings.setting is in the GUC's base unit (ms).
sub bound_is
{
	my ($ms) = @_;
	return "SELECT setting = '$ms' FROM pg_settings WHERE name = 'snowflake.max_clock_backward_ms'";
}

my $primary = new_primary('fo_primary', 'snowflake.datacenter_id = 1', 'snowflake.worker_id = 5');
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION snowflake');

# One base backup, taken before any id is made, for the standby and the control.
$primary->backup('base');

my $standby = PostgreSQL::Test::Cluster->new('fo_standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
# The settings copied with the backup stand (worker 5, borrow, 10 s); only the
# policy is set to "error" for the first call after promotion.
set_case($standby, "snowflake.clock_backward_policy = 'error'");
set_clock($standby, "-" . ($LAG_MS / 1000));
start_node($standby, faketime => 1);
my ($off_lo, $off_hi) = clock_offset($standby);
note "standby clock offset: $off_lo .. $off_hi ms";
ok($off_lo <= -$LAG_MS + 5 && $off_hi >= -$LAG_MS - 5,
	"standby clock is 10 s behind ($off_lo .. $off_hi ms)");
is($standby->safe_psql('postgres', 'SELECT worker_id FROM snowflake_status'), '5',
	'standby has the primary\'s worker id (copied configuration)');

# ---- Ids on the primary for ~3 s.
my $t0 = time;
my $old_min = $primary->safe_psql('postgres', 'SELECT snowflake_nextval()');
$primary->safe_psql('postgres', q{
DO $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
  WHILE clock_timestamp() < t0 + interval '3 s' LOOP
    PERFORM count(*) FROM snowflake_generate(100000);
  END LOOP;
END $$});
my $old_max = $primary->safe_psql('postgres', 'SELECT snowflake_nextval()');
my ($issued, $last_id) = split /\|/,
  $primary->safe_psql('postgres', 'SELECT ids_issued, last_id FROM snowflake_status');
is($last_id, $old_max, 'the last id taken is the largest the primary issued');
my $old_max_ms = $primary->safe_psql('postgres', "SELECT unix_ms FROM snowflake_parse($old_max)");
is($old_max_ms, unix_ms_of($old_max), 'snowflake_parse and the test decode the same ms');
note sprintf('primary issued %d ids in %.1f s; max id %s (unix ms %s)',
	$issued, time - $t0, $old_max, $old_max_ms);
cmp_ok($issued, '>', 100_000, "the primary issued many ids ($issued)");

# ---- Control: the same base backup, no streaming, same lagging clock,
# policy borrow with room enough to issue.
my $control = PostgreSQL::Test::Cluster->new('fo_control');
$control->init_from_backup($primary, 'base');
set_case($control, "snowflake.clock_backward_policy = 'borrow'",
	"snowflake.max_clock_backward_ms = '60s'");
set_clock($control, "-" . ($LAG_MS / 1000));
start_node($control, faketime => 1);
my @ctl = split /\n/, $control->safe_psql('postgres', 'SELECT snowflake_generate(1000)');
my $ctl_below = grep { $_ <= $old_max } @ctl;
note sprintf('control (no WAL replay): %d of %d ids <= old max; its ms %s..%s; the old primary issued from ms %s to %s%s',
	$ctl_below, scalar(@ctl), unix_ms_of(min(@ctl)), unix_ms_of(max(@ctl)), unix_ms_of($old_min), $old_max_ms,
	(unix_ms_of(min(@ctl)) >= unix_ms_of($old_min) ? ' (inside that window, with the same node bits)' : ''));
cmp_ok($ctl_below, '>', 0,
	"control: without the replayed marks, a clone with a lagging clock issues ids below the old primary's ($ctl_below of 1000)");
$control->stop('immediate');

# ---- The standby has replayed marks covering every id issued.  They are in
# its shared memory; its state file follows lazily (at most 10 s of marks
# behind, and in full at the end of recovery or a clean stop).
$primary->wait_for_catchup($standby);
sub replayed_mark
{
	return $standby->safe_psql('postgres',
		'SELECT (extract(epoch FROM durable_mark) * 1000)::bigint FROM snowflake_status');
}
my $mark = replayed_mark();
cmp_ok($mark, '>=', $old_max_ms,
	"standby's replayed mark is >= the old primary's max id ms (ahead by "
	  . ($mark - $old_max_ms) . ' ms)');
cmp_ok(read_state($standby)->{mark_unix_ms}, '>=', $mark - 10_000,
	"its snowflake.state lags by at most 10 s of marks");

# ---- Failover.
$primary->stop('fast');
my $t_stop = now_unix_ms();
# A fast shutdown streams all WAL to the standby first; let it replay all of it.
$standby->poll_query_until('postgres', 'SELECT pg_last_wal_replay_lsn() >= pg_last_wal_receive_lsn()')
  or die 'standby did not replay the WAL it received';
$mark = replayed_mark();    # the last mark streamed
note sprintf('last replayed mark: %s (old primary stopped at %s, %+d ms)',
	$mark, $t_stop, $mark - $t_stop);
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'standby not promoted';
my $t_promoted = now_unix_ms();
note sprintf('promoted %d ms after the old primary stopped', $t_promoted - $t_stop);
is(read_state($standby)->{mark_unix_ms}, $mark,
	'at the end of recovery the state file holds the last replayed mark');

my %report;

# (1) Policy "error": refused at once (the clock is ~10 s behind the mark).
# The clock is behind the mark by mark - (real time - lag), real time being
# that of the call.
my $t_before = now_unix_ms();
my ($ret, $out, $err) = $standby->psql('postgres', 'SELECT snowflake_nextval()');
my $t_after = now_unix_ms();
isnt($ret, 0, 'promoted, policy error: nextval refused');
like($err, qr/ERROR:  system clock moved backwards by (\d+) ms/, '... system clock moved backwards');
my ($behind) = $err =~ /backwards by (\d+) ms/;
$behind //= -1;
my ($exp_lo, $exp_hi) = ($mark + $LAG_MS - $t_after - 5, $mark + $LAG_MS - $t_before + 5);
ok($behind >= $exp_lo && $behind <= $exp_hi,
	"... by the lag plus the mark's lead ($behind ms, expected $exp_lo .. $exp_hi)");
is($out, '', '... and no id returned');
$report{error_policy} = "refused, behind $behind ms";

# (2) Policy "borrow" with a bound below the lag (5 s): refused.
reload_case($standby, bound_is(5000), "snowflake.clock_backward_policy = 'borrow'",
	"snowflake.max_clock_backward_ms = '5s'");
my $elapsed = now_unix_ms() - $t_stop;
($ret, $out, $err) = $standby->psql('postgres', 'SELECT snowflake_generate(1000)');
# How far the server's clock was behind the mark when the call returned:
# at most this much at any moment of the call.
my $behind_at_end = $mark + $LAG_MS - now_unix_ms();
if ($ret == 0)
{
	# Only if the test ran so slowly that the clock came within 5 s of the
	# mark (the primary idle for seconds before its stop leaves the mark
	# that much behind the stop).
	my @ids = split /\n/, $out;
	cmp_ok(min(@ids), '>', $old_max, "borrow 5 s: issued ($elapsed ms after the stop), all above the old max");
}
else
{
	like($err, qr/ERROR:  system clock moved backwards by \d+ ms/, 'borrow 5 s: refused');
	like($err, qr/DETAIL:  snowflake.clock_backward_policy is "borrow".*\(5000 ms\)/,
		'... DETAIL names the policy and the bound');
	is($out, '', '... and no id returned');
}
ok($ret != 0 || $behind_at_end <= 5005,
	"borrow 5 s: refused while the clock is more than 5 s behind the mark ($behind_at_end ms behind at the end of the call, $elapsed ms after the stop)");

# (3) The copied default: borrow, 10 s.  The standby's clock lags the real one
# by 10 s, the mark leads the old primary's last clock reading by < 1 s: once
# the mark is in the real past, borrowing stays within 10 s and ids flow, all
# above the old primary's.  (Before that the call errors: also safe.)
reload_case($standby, bound_is(10000), "snowflake.clock_backward_policy = 'borrow'");
my $t_first = now_unix_ms();
($ret, $out, $err) = $standby->psql('postgres', 'SELECT snowflake_generate(1000)');
if ($ret == 0)
{
	my @ids = split /\n/, $out;
	cmp_ok(min(@ids), '>', $old_max,
		sprintf('borrow 10 s, %d ms after the stop: issued, all above the old max', $t_first - $t_stop));
	$report{default_first} = sprintf('issued (called %+d ms from the mark)', $t_first - $mark);
}
else
{
	like($err, qr/ERROR:  system clock moved backwards by \d+ ms.*\n.*DETAIL:  snowflake.clock_backward_policy is "borrow".*\(10000 ms\)/,
		sprintf('borrow 10 s, %d ms after the stop: refused with the clock message', $t_first - $t_stop));
	is($out, '', '... and no id returned');
	$report{default_first} = sprintf('refused (called %+d ms from the mark): %s',
		$t_first - $mark, ($err =~ /(system clock moved backwards by \d+ ms)/)[0]);
}
while (now_unix_ms() < $mark + 300) { usleep(50_000); }
my $t_call = now_unix_ms();
my @new = split /\n/, $standby->safe_psql('postgres', 'SELECT snowflake_generate(1000)');
my $ahead = $standby->safe_psql('postgres', 'SELECT borrowed_ahead_ms FROM snowflake_status');
is(scalar(@new), 1000, 'borrow 10 s (copied default): ids issued');
ok(strictly_increasing(@new), '... increasing');
cmp_ok(min(@new), '>', $old_max, "... all above the old primary's max id");
cmp_ok(unix_ms_of(min(@new)), '>', $mark, '... and after the replayed mark');
cmp_ok($ahead, '>', 0, "... borrowing ahead of the lagging clock ($ahead ms)");
$report{default_policy} = sprintf('issued %d ms after the stop, %d ms past the mark; min new id - old max = %s; borrowed %s ms',
	$t_call - $t_stop, $t_call - $mark, min(@new) - $old_max, $ahead);

# (4) Borrow with 20 s: many ids, all above the old primary's.
reload_case($standby, bound_is(20000), "snowflake.clock_backward_policy = 'borrow'",
	"snowflake.max_clock_backward_ms = '20s'");
my ($n, $lo, $hi, $wrong) = split /\|/, $standby->safe_psql('postgres',
	'SELECT count(*), min(g), max(g), count(*) FILTER (WHERE (snowflake_parse(g)).worker_id <> 5)
	   FROM snowflake_generate(100000) g');
is($n, 100000, 'borrow 20 s: 100000 ids');
cmp_ok($lo, '>', max(@new), '... above the earlier ones');
cmp_ok($lo, '>', $old_max, "... above the old primary's max id");
is($wrong, 0, '... with the shared worker id 5');
# Still borrowing only while the lagging clock is behind the replayed mark:
# on a loaded machine the 100,000 ids can take until after that (1 s kept
# for the status query itself).
my $t_status = now_unix_ms();
$ahead = $standby->safe_psql('postgres', 'SELECT borrowed_ahead_ms FROM snowflake_status');
if ($t_status < $mark + $LAG_MS - 1000)
{
	cmp_ok($ahead, '>', 0, "... still borrowing ($ahead ms)");
}
else
{
	note sprintf('borrow 20 s: %d ms after the stop the clock is within 1 s of the mark or past it; borrowing %s ms',
		$t_status - $t_stop, $ahead);
}

# The promoted node's own reserver carries on: new marks, written and logged.
my $new_mark = read_state($standby)->{mark_unix_ms};
cmp_ok($new_mark, '>', unix_ms_of($hi), 'the promoted node keeps a mark above its own ids');

note "RESULT error policy: $report{error_policy}";
note "RESULT default policy, first call: $report{default_first}";
note "RESULT default policy: $report{default_policy}";
note sprintf('RESULT control: %d of 1000 ids <= old max, %d ms below it',
	$ctl_below, $old_max_ms - unix_ms_of(min(@ctl)));

$standby->stop;
done_testing();
