# Crashes (kill -9 of the postmaster and all its children) followed by a
# restart with the clock 10 minutes behind (issue 3, tests (a) and (c)):
# the durable high-water mark keeps every new id above every id issued
# before the crash, and the clock policy decides what happens meanwhile.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use IPC::Run;
use Time::HiRes qw(usleep time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

# Ids from several sessions: one batch through snowflake_generate and
# single snowflake_nextval() calls, each in its own session.
sub take_ids
{
	my ($node, $batch) = @_;
	my @ids = split /\n/,
	  $node->safe_psql('postgres', "SELECT snowflake_generate($batch)");
	push @ids, $node->safe_psql('postgres', 'SELECT snowflake_nextval()') for 1 .. 3;
	return @ids;
}

sub strictly_increasing
{
	my @ids = @_;
	for my $i (1 .. $#ids) { return 0 unless $ids[$i] > $ids[ $i - 1 ]; }
	return 1;
}

my $node = new_node('crash');
set_case($node, "snowflake.clock_backward_policy = 'borrow'",
	"snowflake.max_clock_backward_ms = '20min'");
start_node($node, faketime => 1);
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');

# ---- (a) borrow with a bound of 20 min: ids carry on above the old ones.
my @old = take_ids($node, 5000);
my $old_max = max(@old);
crash($node);
my $mark = read_state($node)->{mark_unix_ms};
cmp_ok($mark, '>=', unix_ms_of($old_max),
	'after the crash the durable mark covers every id issued');

set_clock($node, '-10m');
start_node($node, faketime => 1);
my $skew = now_unix_ms() - server_unix_ms($node);
ok($skew > 590_000 && $skew < 610_000, "server clock is 10 min behind ($skew ms)");

my @new = take_ids($node, 5000);
ok(strictly_increasing(@new), 'borrow: ids after the restart increase');
cmp_ok(min(@new), '>', $old_max, 'borrow: every new id is above every old one');
cmp_ok(unix_ms_of(min(@new)), '>', $mark,
	'borrow: every new id decodes to a time after the durable mark');
cmp_ok(unix_ms_of(min(@new)), '>', unix_ms_of($old_max),
	'borrow: ... so after every old id');
my $st = $node->safe_psql('postgres',
	'SELECT clock_backward_events, max_clock_backward_step_ms, borrowed_ahead_ms FROM snowflake_status');
my ($events, $step, $borrowed) = split /\|/, $st;
cmp_ok($events, '>=', 1, 'status counts the clock-backward event');
cmp_ok($step, '>', 590_000, "status records the step ($step ms)");
# The borrowing shrinks as the test runs (the clock goes on, the last id
# stays): 100 s of margin for a loaded machine, still far past any bound.
cmp_ok($borrowed, '>', 500_000, "status shows the ms borrowed ahead ($borrowed ms)");
@old = (@old, @new);
$old_max = max(@old);

# ---- (a) borrow with the default bound (10 s): refused.
crash($node);
set_case($node, "snowflake.clock_backward_policy = 'borrow'");
start_node($node, faketime => 1);
my ($ret, $out, $err, $secs) = timed_psql($node, 'SELECT snowflake_nextval()');
isnt($ret, 0, 'borrow, 10 s bound, clock 10 min behind the mark: refused');
like($err, qr/ERROR:  system clock moved backwards by (\d+) ms/, '... with the clock message');
my ($by) = $err =~ /backwards by (\d+) ms/;
ok(defined $by && $by > 500_000, '... naming the step (' . ($by // '?') . ' ms)');
like($err, qr/DETAIL:  snowflake.clock_backward_policy is "borrow".*\(10000 ms\)/,
	'... DETAIL names the policy and the bound');

# ---- (a) error: refused at once.
crash($node);
set_case($node, "snowflake.clock_backward_policy = 'error'");
start_node($node, faketime => 1);
($ret, $out, $err, $secs) = timed_psql($node, 'SELECT snowflake_nextval()');
isnt($ret, 0, 'error, clock 10 min behind the mark: refused');
like($err, qr/ERROR:  system clock moved backwards by \d{6,} ms/, '... with the clock message');
like($err, qr/DETAIL:  snowflake.clock_backward_policy is "error"/, '... DETAIL names the policy');
cmp_ok($secs, '<', 1.5, sprintf('... at once (%.2f s)', $secs));

# ---- (a) wait with a bound of 2 s: waits 2 s, then errors.
crash($node);
set_case($node, "snowflake.clock_backward_policy = 'wait'",
	"snowflake.max_clock_backward_ms = '2s'");
start_node($node, faketime => 1);
($ret, $out, $err, $secs) = timed_psql($node, 'SELECT snowflake_nextval()');
isnt($ret, 0, 'wait (2 s), clock 10 min behind the mark: refused');
like($err, qr/ERROR:  system clock moved backwards by \d{6,} ms/, '... with the clock message');
like($err,
	qr/DETAIL:  snowflake.clock_backward_policy is "wait" and the clock did not catch up within snowflake.max_clock_backward_ms \(2000 ms\)/,
	'... DETAIL names the policy and the bound');
cmp_ok($secs, '>=', 2.0, sprintf('... after waiting the bound (%.2f s)', $secs));
cmp_ok($secs, '<', 20, '... and not much longer');

# ---- Clock back to normal, default policy: ids above everything before.
crash($node);
set_clock($node, '+0');
set_case($node);
start_node($node, faketime => 1);
@new = take_ids($node, 1000);
cmp_ok(min(@new), '>', $old_max, 'clock restored: ids above every id before the crashes');
$node->stop;

# ---- (c) kill -9 in the middle of 4 sessions generating.
# Phase 1: 4 sessions (sf_concurrency, no reconnect) until the crash; every id
# they received is in before.txt.  Phase 2, after the restart: 4 sessions with
# --reconnect through a second crash, each must be > every phase-1 id.
# Phase 3: 4 more sessions above every id of phases 1 and 2.  Across all
# phases every id is distinct.
sf_concurrency();  # built before the timed parts
my $busy = new_node('busy');
$busy->start;
$busy->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $dir = $busy->basedir;
my $conn = $busy->connstr('postgres');

# Waits until the server has issued at least $n ids since start.
sub wait_issued
{
	my ($node, $n) = @_;
	$node->poll_query_until('postgres',
		"SELECT ids_issued >= $n FROM snowflake_status")
	  or die "server never issued $n ids";
}

# The ids of an --out file by session, and each session's ids split into
# before and after its (first) reconnect (the client writes "N RECONNECT").
sub read_ids
{
	my ($file) = @_;
	my (%by_session, %pre, %post, $marked);
	open my $fh, '<', $file or die "$file: $!";
	while (<$fh>)
	{
		my ($s, $id) = split;
		if ($id eq 'RECONNECT') { $marked = 1; $post{$s} //= []; next; }
		push @{ $by_session{$s} }, $id;
		if (exists $post{$s}) { push @{ $post{$s} }, $id; }
		else { push @{ $pre{$s} }, $id; }
	}
	close $fh;
	return { ids => \%by_session, marked => $marked, pre => \%pre, post => \%post };
}

# Small batches: many round trips, a run that lasts, and few ids to check.
my $c1 = start_client($conn, "$dir/before.txt", 4, 100_000_000, 20);
wait_issued($busy, 50_000);
crash($busy);
my $rc1 = finish_client($c1);
is($rc1, 2, 'phase 1: the client saw its connections die');
my $before = read_ids("$dir/before.txt")->{ids};
my @before = map { @$_ } values %$before;
is(scalar(keys %$before), 4, 'phase 1: 4 sessions received ids before the crash');
cmp_ok(scalar(@before), '>', 0, 'phase 1: ' . scalar(@before) . ' ids received before the crash');
my $before_max = max(@before);

$busy->start;
# The sessions run until the crash (far more ids than they can fetch before
# it) and stop once each has 20,000 ids from the restarted server: the crash
# always lands inside the run, however fast the machine.
my $c2 = start_client($conn, "$dir/during.txt", 4, 100_000_000, 20, '--reconnect',
	'--after-reconnect', 20_000, '--min-id', $before_max);
wait_issued($busy, 50_000);
crash($busy);
$busy->start;
my $rc2 = finish_client($c2);
is($rc2, 0,
	'phase 2: through a second crash, each session increasing, all distinct, all above phase 1');
like(${ $c2->{err} }, qr/connection lost/, 'phase 2: the sessions did reconnect');
my $during_file = read_ids("$dir/during.txt");
my @during = map { @$_ } values %{ $during_file->{ids} };
cmp_ok(scalar(@during), '>=', 4 * 20_000, 'phase 2: every session got its ids after the crash');
cmp_ok(min(@during), '>', $before_max, 'phase 2: every id above every phase-1 id');
ok($during_file->{marked}, 'phase 2: the client marked where sessions reconnected');
my @pre = map { @$_ } values %{ $during_file->{pre} };
my @post = map { @$_ } values %{ $during_file->{post} };
is(scalar(keys %{ $during_file->{post} }), 4, 'phase 2: all 4 sessions reconnected mid-run');
cmp_ok(min(@post), '>', max(@pre),
	'phase 2: every id received after the crash is above every id received before it, across sessions ('
	  . scalar(@pre) . ' before, ' . scalar(@post) . ' after)');

my $c3 = start_client($conn, "$dir/after.txt", 4, 20_000, 1000, '--min-id', max(@during));
is(finish_client($c3), 0, 'phase 3: every id above every id before the second crash');
my @after = map { @$_ } values %{ read_ids("$dir/after.txt")->{ids} };

my %seen;
my $dups = grep { $seen{$_}++ } (@before, @during, @after);
is($dups, 0, 'no id repeats across the crashes (' . scalar(keys %seen) . ' ids)');
$busy->stop;

done_testing();
