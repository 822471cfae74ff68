# snowflake_generate(n) of the SQL edition under concurrency (plain script, no
# pg_tle needed): six sessions at once, each looping
#   INSERT INTO got SELECT ... FROM snowflake_generate(k) WITH ORDINALITY
# with k of 1, 7, 1,000 and 50,000, between statements of snowflake_nextval()
# (one id, twenty ids), one statement at a time, and a seventh doing the same
# whose backend the test cancels (SIGINT, as pg_cancel_backend) every few
# polls, wherever it is (in the slow path's lock too), while the test changes the node's identity twice (once
# with the clock stepped back and ids borrowed ahead), steps the clock back
# under each policy (borrow, error, wait), and last crashes the server (an
# immediate stop) with the sessions running and starts new ones.  Then four
# sessions do the same in a database of 4 ids a millisecond and no node bits,
# where a value past a region's bound is the next millisecond's (the race
# the bound check prevents), the clock right, 1 s back, right again.  Every
# change waits for every session to finish some statements after the one
# before (no sleep decides what overlaps what).  Then:
#   - no id twice, across all sessions, the identities and the crash;
#   - each session's ids strictly increasing in the order they were made
#     (statement, then WITH ORDINALITY), and a statement that completed
#     returned exactly the ids it asked for;
#   - a statement sent after another one (of any session) was seen to end
#     has only ids above that one's;
#   - the identity: each change's ids above all of the identity before, and
#     every id at or above the bound published when the change committed
#     carries the new identity (or a later one);
#   - every id decodes to a time at or after the clock (clock_timestamp())
#     read just before its statement, and at most borrow's bound (10 s) after
#     the clock read just after it, each widened by the clock's steps made
#     while the statement may have run;
#   - the only errors are the clock policies' (error, and wait), the
#     cancels' and the crash's, and error refused at least once; after the
#     crash every id is above every id committed before it.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use lib "$FindBin::RealBin/../t";
use IPC::Run;
use List::Util qw(all);
use Time::HiRes qw(usleep time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest qw(set_clock start_node max min);
use SqlEditionTest;

my $SESSIONS = 6;
my $EPOCH_MS = 1288834974657;

my $node = plain_node('generate');
start_node($node, faketime => 1);
add_role($node, 'app', 'CREATE SCHEMA app AUTHORIZATION app');
$node->safe_psql('postgres', 'CREATE DATABASE carry OWNER app');
safe_psql_as($node, 'carry', 'app', 'CREATE SCHEMA app');
for my $db ('postgres', 'carry')
{
	install_plain($node, $db, 'app', 'app');
	safe_psql_as($node, $db, 'app', <<'EOS');
CREATE TABLE app.got (sess integer, stmt integer, ord bigint, id bigint, t0 timestamptz);
CREATE TABLE app.ends (sess integer, stmt integer, t1 timestamptz);
CREATE TABLE app.rounds (sess integer, stmt integer, k integer, completed boolean,
                         feed_seq integer, done_seq integer, allowance_ms bigint);
EOS
}
safe_psql_as($node, 'postgres', 'app', 'SELECT app.snowflake_configure(worker_id => 1)');
# 4 ids a millisecond and no node bits: a value past a region's bound is the
# next millisecond's, which another session may be about to publish.
safe_psql_as($node, 'carry', 'app',
	'SELECT app.snowflake_configure(worker_id => 0, datacenter_bits => 0, worker_bits => 0, sequence_bits => 2)');

# The statements each session runs, in turn (each session starts elsewhere in
# the list): [g, k] snowflake_generate(k), [n, k] k calls of snowflake_nextval().
my @kinds = ([ g => 1 ], [ g => 7 ], [ n => 1 ], [ g => 1000 ], [ g => 50000 ],
	[ n => 20 ], [ g => 7 ], [ g => 1000 ]);
# In the database of 4 ids a millisecond: fewer.
my @kinds_carry = ([ g => 1 ], [ g => 7 ], [ n => 1 ], [ g => 100 ], [ n => 20 ],
	[ g => 1000 ], [ g => 7 ], [ g => 100 ]);

# Periods: the clock's offset (ms) and the policy between two changes the
# test made.  A statement is known by the periods at which it was sent and
# at which its end was seen (Perl does nothing in between a change and the
# start of its period, so that no statement is sent or seen to end there).
my @periods = ({ offset => 0, policy => 'borrow', crash => 0 });
my $seq = 0;        # orders sends and ends seen, across sessions
my %rounds;         # "sess stmt" => what the test knows of the statement
my @sessions;
my $feeding = 1;

sub period
{
	my (%c) = @_;
	push @periods, { %{ $periods[-1] }, %c };
}

sub open_gen_session
{
	my ($db, $sid, $kinds) = @_;
	my %s = (db => $db, sid => $sid, kinds => $kinds, in => '', out => '', err => '', next => 0,
		done => 0, cancel => $sid % 100 == $SESSIONS + 1);
	$s{h} = IPC::Run::start(
		[ $node->installed_command('psql'), '-X', '-A', '-t', '-q', '-v', 'ON_ERROR_STOP=0',
		  '-d', $node->connstr($db), '-U', 'app' ],
		'<', \$s{in}, '>', \$s{out}, '2>', \$s{err});
	if ($s{cancel})
	{
		# Not statement_timeout: its SIGALRM handler reads the clock, which
		# libfaketime reads from a file (malloc in a signal handler).
		$s{in} .= "SELECT pg_backend_pid();\n";
		$s{h}->pump until $s{out} =~ /^(\d+)\n/m;
		$s{pid} = $1;
	}
	return \%s;
}

sub feed
{
	my ($s) = @_;
	my $sid = $s->{sid};
	my $r = ++$s->{next};
	my @kinds = @{ $s->{kinds} };
	my ($kind, $k) = @{ $kinds[ ($r + $sid) % @kinds ] };
	my $sql = "SELECT clock_timestamp() AS t0 \\gset\n";
	$sql .= $kind eq 'g'
	  ? "INSERT INTO app.got SELECT $sid, $r, o, id, :'t0' FROM app.snowflake_generate($k) WITH ORDINALITY AS g(id, o);\n"
	  : "INSERT INTO app.got SELECT $sid, $r, o, app.snowflake_nextval(), :'t0' FROM generate_series(1, $k) AS o;\n";
	$sql .= "SELECT clock_timestamp() AS t1 \\gset\n";
	$sql .= "INSERT INTO app.ends VALUES ($sid, $r, :'t1');\n";
	$sql .= "\\warn done $r\n";
	$rounds{"$s->{db} $sid $r"} = { db => $s->{db}, sess => $sid, stmt => $r, k => $k, feed_seq => ++$seq, p1 => $#periods,
		cancel => $s->{cancel} };
	$s->{in} .= $sql;
}

# Reads what the sessions wrote; each statement that ended is recorded and,
# while feeding, the session gets its next one.
sub collect
{
	my ($s) = @_;
	while ($s->{err} =~ s/\A(.*?)^done (\d+)\n//ms)
	{
		my ($text, $r) = ($1, $2);
		my $rd = $rounds{"$s->{db} $s->{sid} $r"};
		$rd->{done_seq} = ++$seq;
		$rd->{p2} = $#periods;
		$rd->{err} = $text;
		$s->{done}++;
		feed($s) if $feeding;
	}
}

my $polls = 0;

sub poll
{
	$polls++;
	for my $s (@sessions)
	{
		# A cancel of the statement in progress, if any (one between two
		# statements is ignored).
		kill 'INT', $s->{pid} if $s->{cancel} && $feeding && $polls % 3 == 0;
		eval { $s->{h}->pump_nb if $s->{h}->pumpable; 1 } or note "session $s->{sid}: $@";
		collect($s);
	}
}

# Lets every session end $n more statements (and $more->() hold).
sub run_rounds
{
	my ($n, $what, $more) = @_;
	my %base = map { $_->{sid} => $_->{done} } @sessions;
	my $deadline = time + 3 * $PostgreSQL::Test::Utils::timeout_default;
	while (1)
	{
		poll();
		for my $s (@sessions)
		{
			die "session $s->{sid} ended: $s->{err}" unless $s->{h}->pumpable;
		}
		last if (all { $_->{done} - $base{ $_->{sid} } >= $n } @sessions) && (!$more || $more->());
		die "sessions stalled in: $what" if time > $deadline;
		usleep(20_000);
	}
	note "$what: " . join(', ', map { "$_->{sid}: $_->{done}" } @sessions) . ' statements';
}

sub configure
{
	my ($args) = @_;
	# Two statements, two transactions: the bound is read after the commit.
	my $hi = safe_psql_as($node, 'postgres', 'app',
		"SELECT app.snowflake_configure($args); SELECT pg_sequence_last_value('app.snowflake_sql_bound')");
	($hi) = $hi =~ /(\d+)\s*\z/;
	return $hi;
}

sub clock
{
	my ($s) = @_;
	set_clock($node, $s < 0 ? "$s" : "+$s");
	period(offset => int($s * 1000));
}

sub clock_errors_since
{
	my ($p) = @_;
	return scalar grep { defined $_->{p2} && $_->{p2} >= $p && ($_->{err} // '') =~ /ERROR:\s+system clock moved backwards/ }
	  values %rounds;
}

my %identity_bound;    # worker => G read after the change committed
@sessions = map { open_gen_session('postgres', $_, \@kinds) } 1 .. $SESSIONS + 1;
feed($_) for @sessions;
run_rounds(3, 'worker 1, borrow, clock right');

$identity_bound{2} = configure('worker_id => 2');
period();
run_rounds(3, 'worker 2');

clock(-2);
run_rounds(3, 'borrow, clock 2 s back');

$identity_bound{3} = configure('worker_id => 3');
period();
run_rounds(3, 'worker 3, changed with the clock 2 s back (borrowing)');

clock(0);
configure("worker_id => 3, clock_backward_policy => 'error'");
period(policy => 'error');
run_rounds(2, 'error, clock right');
my $error_from = scalar @periods;
clock(-2);
run_rounds(3, 'error, clock 2 s back', sub { clock_errors_since($error_from) > 0 });

clock(0);
configure("worker_id => 3, clock_backward_policy => 'wait', max_clock_backward_ms => 5000");
period(policy => 'wait');
run_rounds(2, 'wait, clock right');
clock(-1);
run_rounds(3, 'wait, clock 1 s back');

clock(0);
configure('worker_id => 3');
period(policy => 'borrow');
run_rounds(3, 'borrow, clock right');

# The crash, with every session in a statement.
$feeding = 0;
poll();
period(crash => 1);
$node->stop('immediate');
for my $s (@sessions)
{
	$s->{in} .= "\\q\n";
	eval { $s->{h}->finish; 1 } or note "session $s->{sid}: $@";
	collect($s);
	note "session $s->{sid} after the crash: $s->{err}";
}
note 'statements in progress at the crash: ' . scalar(grep { !defined $_->{done_seq} } values %rounds);
start_node($node, faketime => 1);
period(crash => 0);
$feeding = 1;
@sessions = map { open_gen_session('postgres', 100 + $_, \@kinds) } 1 .. $SESSIONS + 1;
feed($_) for @sessions;
run_rounds(3, 'after the crash');
sub stop_sessions
{
	$feeding = 0;
	run_rounds(1, 'the last statements');
	for my $s (@sessions)
	{
		$s->{in} .= "\\q\n";
		$s->{h}->finish;
	}
	$feeding = 1;
}
stop_sessions();

# Four sessions in the database of 4 ids a millisecond, the clock right,
# then 1 s back (borrow), then right again.
@sessions = map { open_gen_session('carry', $_, \@kinds_carry) } 1 .. 4;
feed($_) for @sessions;
run_rounds(3, '4 ids a millisecond, clock right');
clock(-1);
run_rounds(3, '4 ids a millisecond, borrow, clock 1 s back');
clock(0);
run_rounds(2, '4 ids a millisecond, clock right');
stop_sessions();

# What the test knows of each statement, into the table.  The allowance is
# how far the clock went back while the statement may have run (from the
# period before it was sent, in case the clock changed just before).
my @unexpected;
my %values;
for my $rd (sort { $a->{feed_seq} <=> $b->{feed_seq} } values %rounds)
{
	my $p2 = $rd->{p2} // $#periods;
	my @in = @periods[ $rd->{p1} .. $p2 ];
	my $allowance = max(map { $_->{offset} } @in) - min(map { $_->{offset} } @in);
	my $policy_errors = grep { $_->{policy} ne 'borrow' } @in;
	my $crash = grep { $_->{crash} } @in;
	my $completed = defined $rd->{done_seq} && ($rd->{err} // '') eq '' ? 'true' : 'false';
	for my $line (split /\n/, $rd->{err} // '')
	{
		next unless $line =~ /ERROR|FATAL|server closed|connection/;
		next if $line =~ /ERROR:\s+system clock moved backwards by \d+ ms/ && $policy_errors;
		next if $line =~ /ERROR:\s+canceling statement due to user request/ && $rd->{cancel};
		next if $crash;
		push @unexpected, "$rd->{db}: session $rd->{sess} statement $rd->{stmt}: $line";
	}
	push @{ $values{ $rd->{db} } }, sprintf('(%d, %d, %d, %s, %d, %s, %d)', $rd->{sess}, $rd->{stmt}, $rd->{k}, $completed,
		$rd->{feed_seq}, $rd->{done_seq} // 'NULL', $allowance);
}
safe_psql_as($node, $_, 'app', 'INSERT INTO app.rounds VALUES ' . join(",\n", @{ $values{$_} }))
  for keys %values;
is(join("\n", @unexpected), '', 'no error but the clock policies\' (and the crash\'s)');
cmp_ok(clock_errors_since($error_from), '>', 0,
	'policy error, clock 2 s back: refused (' . clock_errors_since($error_from) . ' statements)');

sub sq { return safe_psql_as($node, $_[1] // 'postgres', 'app', $_[0]); }

# The checks of every database: $shift is its layout's.
sub common_checks
{
	my ($db, $shift, $what) = @_;
	my ($n, $distinct) = split /\|/, sq('SELECT count(*), count(DISTINCT id) FROM app.got', $db);
	my $statements = sq('SELECT count(*) FROM app.rounds WHERE completed', $db);
	note "$what: $n ids from $statements statements that completed";
	is($distinct, $n, "$what: no id twice ($n ids)");
	is(sq(<<'EOS', $db), '0', "$what: each session's ids strictly increasing in the order made");
SELECT count(*) FROM (
    SELECT id, lag(id) OVER (PARTITION BY sess ORDER BY stmt, ord) AS before FROM app.got) x
WHERE id <= before
EOS
	is(sq(<<'EOS', $db), '', "$what: each statement that completed has the ids it asked for, numbered 1 to k");
SELECT string_agg(format('%s/%s: %s of %s', r.sess, r.stmt, g.n, r.k), ', ')
FROM app.rounds r LEFT JOIN (SELECT sess, stmt, count(*) AS n, max(ord) AS top FROM app.got GROUP BY 1, 2) g
     USING (sess, stmt)
WHERE r.completed AND (g.n IS DISTINCT FROM r.k OR g.top IS DISTINCT FROM r.k)
EOS
	is(sq(<<'EOS', $db), '', "$what: a statement sent after another was seen to end has only ids above that one's");
WITH r AS (
    SELECT sess, stmt, min(id) AS lo, max(id) AS hi, feed_seq, done_seq
    FROM app.got JOIN app.rounds USING (sess, stmt) GROUP BY sess, stmt, feed_seq, done_seq)
SELECT string_agg(format('%s/%s', b.sess, b.stmt), ', ')
FROM r b
WHERE b.lo <= (SELECT max(a.hi) FROM r a WHERE a.done_seq < b.feed_seq)
EOS
	is(sq(<<"EOS", $db), '0', "$what: every id decodes to its statement's clock or later (less the steps back made meanwhile)");
SELECT count(*) FROM app.got JOIN app.rounds USING (sess, stmt)
WHERE (id >> $shift) + $EPOCH_MS < floor(extract(epoch FROM t0) * 1000) - allowance_ms
EOS
	is(sq(<<"EOS", $db), '0', "$what: ... and to its clock after it or earlier, but for borrowing (10 s at most)");
SELECT count(*) FROM app.got JOIN app.rounds USING (sess, stmt) JOIN app.ends USING (sess, stmt)
WHERE (id >> $shift) + $EPOCH_MS > floor(extract(epoch FROM t1) * 1000) + allowance_ms + 10000
EOS
	note "$what: ids ahead of the clock read after their statement (borrowed): "
	  . sq("SELECT count(*) FROM app.got JOIN app.ends USING (sess, stmt) WHERE (id >> $shift) + $EPOCH_MS > floor(extract(epoch FROM t1) * 1000)", $db);
	return $n;
}

cmp_ok(common_checks('postgres', 22, 'default layout'), '>', 200_000, '... many ids');
common_checks('carry', 2, '4 ids a millisecond');

# The identity (the default layout: datacenter 0).
is(sq('SELECT count(*) FROM app.got WHERE (id >> 17) & 31 <> 0 OR (id >> 12) & 31 NOT IN (1, 2, 3)'), '0',
	'every id carries datacenter 0 and worker 1, 2 or 3');
my %per = map { split /\|/ } split /\n/, sq('SELECT (id >> 12) & 31, count(*) FROM app.got GROUP BY 1');
ok((all { ($per{$_} // 0) > 0 } 1, 2, 3), 'ids of each identity (' . join(', ', map { "worker $_: " . ($per{$_} // 0) } 1 .. 3) . ')');
is(sq(<<'EOS'), 't|t', 'each identity\'s ids are above every id of the one before');
SELECT max(id) FILTER (WHERE (id >> 12) & 31 = 1) < min(id) FILTER (WHERE (id >> 12) & 31 = 2),
       max(id) FILTER (WHERE (id >> 12) & 31 = 2) < min(id) FILTER (WHERE (id >> 12) & 31 = 3)
FROM app.got
EOS
is(sq("SELECT count(*) FROM app.got WHERE id >= $identity_bound{2} AND (id >> 12) & 31 = 1"), '0',
	'no id of worker 1 at or above the bound published when worker 2 committed');
is(sq("SELECT count(*) FROM app.got WHERE id >= $identity_bound{3} AND (id >> 12) & 31 <> 3"), '0',
	'none but worker 3\'s at or above the bound published when worker 3 committed (clock back)');

is(sq('SELECT max(id) FILTER (WHERE sess < 100) < min(id) FILTER (WHERE sess > 100) FROM app.got'), 't',
	'after the crash, every id is above every id committed before it');

$node->stop;
done_testing();
