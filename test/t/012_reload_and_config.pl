# Reloads and configuration changes (issue 3, tests (d) and (e)): a reload
# changing the clock policy, its bound or the node identity takes effect at
# once; at start, a configuration that could collide with ids already issued
# (later epoch, other widths) is refused with a message naming the setting,
# while an earlier epoch and a new node identity are accepted and logged.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use Time::HiRes qw(usleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use SnowflakeTest;

my $node = new_node('reload');
start_node($node, faketime => 1);
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');

sub one_id { return $node->safe_psql('postgres', 'SELECT snowflake_nextval()'); }

sub increasing
{
	my @ids = @_;
	for my $i (1 .. $#ids) { return 0 unless $ids[$i] > $ids[ $i - 1 ]; }
	return 1;
}

my ($ret, $out, $err, $id, $last);

# ---- (d) policy and bound by reload while the clock is behind.
# (9 s behind, within the 10 s bound: the reload to 1 s below finds the
# node still borrowing more than 1 s ahead even on a loaded machine.)
$last = one_id();
set_clock($node, '-9');
$id = one_id();
cmp_ok($id, '>', $last, 'borrow (default): clock 9 s behind, ids continue above the last one');
$last = $id;

reload_case($node, "SELECT clock_backward_policy = 'error' FROM snowflake_status",
	"snowflake.clock_backward_policy = 'error'");
($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_nextval()');
isnt($ret, 0, 'reload borrow -> error: the next call is refused');
like($err, qr/ERROR:  system clock moved backwards by \d+ ms/, '... with the clock message');
like($err, qr/DETAIL:  snowflake.clock_backward_policy is "error"/, '... naming the new policy');

reload_case($node, "SELECT clock_backward_policy = 'borrow' FROM snowflake_status",
	"snowflake.clock_backward_policy = 'borrow'");
$id = one_id();
cmp_ok($id, '>', $last, 'reload error -> borrow: the next call succeeds, above the last id');
$last = $id;

reload_case($node, 'SELECT max_clock_backward_ms = 1000 FROM snowflake_status',
	"snowflake.max_clock_backward_ms = '1s'");
($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_nextval()');
isnt($ret, 0, 'reload of the bound to 1 s while borrowing ~9 s ahead: refused');
like($err, qr/DETAIL:  snowflake.clock_backward_policy is "borrow" and issuing an id would run ahead of the clock by more than snowflake.max_clock_backward_ms \(1000 ms\)/,
	'... naming the new bound');
reload_case($node, 'SELECT max_clock_backward_ms = 10000 FROM snowflake_status');
$id = one_id();
cmp_ok($id, '>', $last, 'bound back to 10 s: ids flow again');
$last = $id;
set_clock($node, '+0');

# A session that is open across the reload picks the new policy up at its
# next command (PostgreSQL reloads between commands).
my $bg = $node->background_psql('postgres');
cmp_ok($bg->query_safe('SELECT snowflake_nextval()'), '>', $last, 'a long-lived session takes ids');
set_case($node, "snowflake.clock_backward_policy = 'wait'");
$node->reload;
$node->poll_query_until('postgres', "SELECT clock_backward_policy = 'wait' FROM snowflake_status");
my $seen;
foreach (1 .. 50)
{
	$seen = $bg->query_safe('SELECT clock_backward_policy FROM snowflake_status');
	last if $seen eq 'wait';
	usleep(100_000);
}
is($seen, 'wait', 'the open session sees the reloaded policy');
$last = $bg->query_safe('SELECT snowflake_nextval()');
$bg->quit;

# ---- (d) node identity by reload: ids keep increasing, decode to the new node.
foreach my $case ([ 26, 17 ], [ 3, 17 ], [ 3, 18 ], [ 2, 1 ])
{
	my ($w, $dc) = @$case;
	reload_case($node, "SELECT worker_id = $w AND datacenter_id = $dc FROM snowflake_status",
		"snowflake.worker_id = $w", "snowflake.datacenter_id = $dc");
	my @ids = split /\n/, $node->safe_psql('postgres',
		'SELECT snowflake_generate(5000) UNION ALL SELECT snowflake_nextval()');
	ok(increasing($last, @ids), "reload to datacenter $dc worker $w: ids keep increasing");
	my @bad = grep { my $d = decode_id($_); $d->{worker_id} != $w || $d->{datacenter_id} != $dc } @ids;
	is(scalar(@bad), 0, "reload to datacenter $dc worker $w: every id decodes to the new node");
	is($node->safe_psql('postgres', "SELECT datacenter_id || '/' || worker_id FROM snowflake_parse($ids[-1])"),
		"$dc/$w", '... also by snowflake_parse');
	$last = $ids[-1];
}
# A statement already running when the identity changes switches at once: the
# identity lives in shared memory, not in the backend's copy of the settings
# (which PostgreSQL reloads only between commands).  Otherwise a long
# statement would keep issuing under an identity another node may now own.
my ($slow_out, $slow_err) = ('', '');
my $slow = IPC::Run::start(
	[ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-c',
	  'CREATE TABLE slow_ids AS SELECT g, snowflake_nextval() AS id, pg_sleep(0.01)::text AS slept FROM generate_series(1, 300) g' ],
	'>', \$slow_out, '2>', \$slow_err);
usleep(1_000_000);
reload_case($node, 'SELECT worker_id = 9 FROM snowflake_status',
	'snowflake.worker_id = 9', 'snowflake.datacenter_id = 1');
ok($slow->finish, 'the long statement ran') or diag($slow_err);
my @slow = split /\n/, $node->safe_psql('postgres', 'SELECT id FROM slow_ids ORDER BY g');
is(scalar(@slow), 300, 'the long statement finished');
ok(increasing($last, @slow), 'its ids kept increasing across the reload');
is(decode_id($slow[0])->{worker_id}, 2, 'it started under worker 2');
is(decode_id($slow[-1])->{worker_id}, 9, 'and finished under worker 9, switched mid-statement');
$last = $slow[-1];
reload_case($node, 'SELECT worker_id = 2 FROM snowflake_status',
	'snowflake.worker_id = 2', 'snowflake.datacenter_id = 1');

# The reserver reloads too: the next reservation written while ids are issued
# records the node they come from.  (An idle node writes no mark, so keep
# issuing while polling.)
$node->poll_query_until('postgres',
	"SELECT count(*) > 0 FROM snowflake_generate(200000) HAVING pg_read_file('snowflake.state') ~ 'datacenter_id 1\nworker_id 2\n'")
  or diag(slurp_file(state_path($node)));
my $state = read_state($node);
is("$state->{datacenter_id}/$state->{worker_id}", '1/2', 'the state file records the reloaded node identity');
$last = one_id();
$node->stop;
my $old_max = $last;

# ---- (e) configuration changes at start.
my $default_epoch = $SnowflakeTest::EPOCH_MS;
my $base = [ 'snowflake.worker_id = 2', 'snowflake.datacenter_id = 1' ];

# Starts with the given extra lines; returns (started, log of this attempt).
sub try_start
{
	my (@lines) = @_;
	set_case($node, @$base, @lines);
	my $offset = -s $node->logfile;
	my $started = start_node($node, fail_ok => 1);
	return ($started, slurp_file($node->logfile, $offset));
}

my $file_before = slurp_file(state_path($node));
foreach my $case (
	[ 'snowflake.epoch = ' . ($default_epoch + 1000), 'snowflake.epoch' ],
	[ "snowflake.epoch = '2015-01-01 00:00:00+00'", 'snowflake.epoch' ],
	[ 'snowflake.sequence_bits = 11', 'snowflake.sequence_bits' ],
	[ 'snowflake.worker_bits = 6', 'snowflake.worker_bits' ],
	[ 'snowflake.datacenter_bits = 6', 'snowflake.datacenter_bits' ])
{
	my ($line, $name) = @$case;
	my ($started, $log) = try_start($line);
	ok(!$started, "start refused with $line");
	like($log, qr/FATAL:  \Q$name\E differs from the value the ids of this node were issued under/,
		"... the message names $name");
	like($log, qr/DETAIL:  snowflake.state records epoch $default_epoch and layout 5\/5\/12/,
		'... DETAIL gives the recorded epoch and layout');
	$node->stop if $started;
}
{
	# Two widths changed at once: the message names both.
	my ($started, $log) = try_start('snowflake.worker_bits = 6', 'snowflake.sequence_bits = 11');
	ok(!$started, 'start refused with worker_bits and sequence_bits changed');
	like($log,
		qr/FATAL:  snowflake.worker_bits and snowflake.sequence_bits differ from the values the ids of this node were issued under/,
		'... the message names both');
	like($log, qr/HINT:  Restore the previous values of snowflake.worker_bits and snowflake.sequence_bits/,
		'... and so does the HINT');
	$node->stop if $started;
}
is(slurp_file(state_path($node)), $file_before, 'refused starts leave the state file as it was');

my $earlier = $default_epoch - 86_400_000;
my ($started, $log) = try_start("snowflake.epoch = $earlier");
ok($started, 'an earlier epoch is accepted');
like($log, qr/LOG:  snowflake.epoch moved earlier, from $default_epoch to $earlier/, '... and logged');
$id = one_id();
cmp_ok($id, '>', $old_max, 'with the earlier epoch, ids are above every id issued before');
my $new_ms = $node->safe_psql('postgres', "SELECT unix_ms FROM snowflake_parse($id)");
cmp_ok($new_ms, '>=', unix_ms_of($old_max), '... and decode (with the new epoch) to a later time');
cmp_ok(abs($new_ms - now_unix_ms()), '<', 5000, '... which is now');
$node->stop;
is(read_state($node)->{epoch_ms}, $earlier, 'the state file now records the earlier epoch');

($started, $log) = try_start();
ok(!$started, 'going back to the later (default) epoch is now refused');
like($log, qr/FATAL:  snowflake.epoch differs/, '... naming snowflake.epoch');
$node->stop if $started;

$base = [ "snowflake.epoch = $earlier", 'snowflake.datacenter_id = 1' ];
($started, $log) = try_start('snowflake.worker_id = 7');
ok($started, 'a new worker id at start is accepted');
like($log, qr/LOG:  snowflake node identity changed from datacenter 1 worker 2 to datacenter 1 worker 7/,
	'... and logged ("node identity changed")');
my $id2 = one_id();
cmp_ok($id2, '>', $id, '... ids keep increasing');
is($node->safe_psql('postgres', "SELECT datacenter_id || '/' || worker_id FROM snowflake_parse($id2)"),
	'1/7', '... and decode to the new worker');
$node->stop;

($started, $log) = try_start('snowflake.worker_id = 7', 'snowflake.datacenter_id = 9');
ok($started, 'a new datacenter id at start is accepted');
like($log, qr/LOG:  snowflake node identity changed from datacenter 1 worker 7 to datacenter 9 worker 7/,
	'... and logged');
cmp_ok(one_id(), '>', $id2, '... ids keep increasing');
$node->stop;

done_testing();
