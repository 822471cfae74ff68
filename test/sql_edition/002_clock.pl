# The SQL edition and the clock, on a managed server whose clock libfaketime
# steps (everything as a role that is not a superuser):
#   - the three policies when the clock steps back: borrow runs ahead within
#     its bound and refuses past it, error refuses, wait waits within its
#     bound and refuses past it.  This edition applies the policy from the
#     first id after the millisecond in progress: the ids left in that
#     millisecond are still issued (above every earlier id);
#   - more ids than a millisecond holds move on to the next millisecond and
#     never into the identity bits;
#   - many sessions while the clock steps back and forth: no duplicate, each
#     session increasing, with the default layout and with 4 ids per
#     millisecond and no node bits.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use lib "$FindBin::RealBin/../t";
use Time::HiRes qw(usleep time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest qw(decode_id set_clock start_node sf_concurrency start_client finish_client max min);
use SqlEditionTest;

my $node = managed_node('clock');
start_node($node, faketime => 1);
add_role($node, 'app', 'CREATE SCHEMA app AUTHORIZATION app');
for my $db (qw(postgres small carry))
{
	$node->safe_psql('postgres', "CREATE DATABASE $db") if $db ne 'postgres';
	$node->safe_psql($db, 'CREATE EXTENSION pg_tle; GRANT pgtle_admin TO app');
	$node->safe_psql($db, 'CREATE SCHEMA app AUTHORIZATION app') if $db ne 'postgres';
	install_pg_tle($node, $db, 'app', 'app');
}

# Takes up to $n ids one call at a time in one session; returns the ids
# taken and the error that stopped it ('' if none).
safe_psql_as($node, $_, 'app', <<'EOS') for qw(postgres small carry);
CREATE FUNCTION app.take(n integer, OUT ids bigint[], OUT err text)
LANGUAGE plpgsql AS $$
BEGIN
    ids := '{}';
    err := '';
    FOR i IN 1 .. n LOOP
        ids := ids || app.snowflake_nextval();
    END LOOP;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS err = MESSAGE_TEXT;
    err := err || ' | ' || SQLSTATE;
    DECLARE d text;
    BEGIN
        GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
        err := err || ' | ' || d;
    END;
END
$$;
EOS

sub take
{
	my ($n, $db) = @_;
	my $r = safe_psql_as($node, $db // 'postgres', 'app', "SELECT array_to_string(ids, ','), err FROM app.take($n)");
	my ($list, $err) = split /\|/, $r, 2;
	return ([ split /,/, $list // '' ], $err // '');
}

sub configure
{
	my ($args, $db) = @_;
	safe_psql_as($node, $db // 'postgres', 'app', "SELECT app.snowflake_configure($args)");
}

my @all;
my ($ids, $err);

# ---- borrow (the default), bound 10 s --------------------------------------
configure('worker_id => 5');
my $t_step = time;
($ids, $err) = take(2000);
is($err, '', 'clock right: ids');
push @all, @$ids;
set_clock($node, '-3');
($ids, $err) = take(10000);
is($err, '', 'borrow, clock 3 s back: ids go on (10,000 of them)');
ok(increasing(@all, @$ids), '... above every earlier id, increasing');
push @all, @$ids;
my $ahead = $node->safe_psql('postgres', 'SELECT borrowed_ahead_ms FROM app.snowflake_status');
borrowed_after_step($ahead, 3000, $t_step, '... the status shows the ms borrowed ahead');
set_clock($node, '-30');
($ids, $err) = take(10000);
like($err, qr/^system clock moved backwards by \d+ ms \| 55000 \| The clock_backward_policy of snowflake_configure is "borrow" and issuing an id would run ahead of the clock by more than max_clock_backward_ms \(10000 ms\)\./,
	'borrow, clock 30 s back: refused past the bound');
cmp_ok(scalar(@$ids), '<=', 4096, '... after at most the millisecond in progress (' . scalar(@$ids) . ' ids)');
push @all, @$ids;
($ids, $err) = take(1);
like($err, qr/^system clock moved backwards/, '... and then at once');

# ---- error -------------------------------------------------------------------
set_clock($node, '+0');
configure("worker_id => 5, clock_backward_policy => 'error'");
($ids, $err) = take(100);
is($err, '', 'error: ids with the clock right');
ok(increasing(@all, @$ids), '... above every earlier id');
push @all, @$ids;
# 20 s back: the clock stays behind the last id for the checks below even
# on a loaded machine (2 s had passed before the last one on pg19, and it
# got an id, rightly).
set_clock($node, '-20');
($ids, $err) = take(10000);
like($err, qr/^system clock moved backwards by \d+ ms \| 55000 \| The clock_backward_policy of snowflake_configure is "error" \(max_clock_backward_ms = 10000 ms\)\./,
	'error, clock 20 s back: refused');
cmp_ok(scalar(@$ids), '<=', 4096, '... after at most the millisecond in progress (' . scalar(@$ids) . ' ids)');
push @all, @$ids;
($ids, $err) = take(1);
like($err, qr/^system clock moved backwards/, '... and then at once');

# ---- wait, bound 5 s -----------------------------------------------------------
set_clock($node, '+0');
configure("worker_id => 5, clock_backward_policy => 'wait', max_clock_backward_ms => 5000");
($ids, $err) = take(100);
push @all, @$ids;
set_clock($node, '-1');
($ids, $err) = take(6000);
is($err, '', 'wait, clock 1 s back: ids, once the clock is back where the last id was');
ok(increasing(@all, @$ids), '... above every earlier id');
my $last = decode_id($ids->[-1])->{unix_ms};
my $now = $node->safe_psql('postgres', "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint");
cmp_ok($last, '<=', $now + 1, '... none ahead of the clock: it waited instead of borrowing');
push @all, @$ids;
set_clock($node, '-20');
($ids, $err) = take(10000);
like($err, qr/^system clock moved backwards by \d+ ms \| 55000 \| The clock_backward_policy of snowflake_configure is "wait" and the clock did not catch up within max_clock_backward_ms \(5000 ms\)\./,
	'wait, clock 20 s back: refused after the bound');
push @all, @$ids;
set_clock($node, '+0');
configure('worker_id => 5');
ok(all_distinct(@all), 'no id repeats across the policies (' . scalar(@all) . ' ids)');

# ---- more ids than a millisecond holds ---------------------------------------
configure('worker_id => 3, datacenter_id => 1, sequence_bits => 4', 'small');
($ids, $err) = take(5000, 'small');
is($err, '', '16 ids per millisecond: 5,000 ids in one session');
ok(increasing(@$ids), '... increasing');
my %per_ms;
my $bad = 0;
for (@$ids)
{
	my $ms = $_ >> 14;    # 4 sequence bits, 5 worker, 5 datacenter
	$per_ms{$ms}++;
	$bad++ if (($_ >> 4) & 1023) != ((1 << 5) | 3);
}
is($bad, 0, '... every one with the identity bits of datacenter 1, worker 3');
is(max(values %per_ms), 16, '... at most 16 in a millisecond, the full 16 in some');
cmp_ok(scalar(keys %per_ms), '>=', 5000 / 16, '... so they moved on to later milliseconds');

# ---- many sessions while the clock steps -------------------------------------
configure('worker_id => 0, datacenter_bits => 0, worker_bits => 0, sequence_bits => 2', 'carry');
sf_concurrency();
my $dir = $node->basedir;
my @steps = ('-1', '+0', '-0.2', '+0', '-2', '-0.05', '+0', '-0.5', '+0');
for my $case ([ 'postgres', 'the default layout', 1, 3000 ], [ 'postgres', 'the default layout', 25, 20000 ],
	[ 'carry', '4 ids per ms, no node bits', 1, 800 ], [ 'carry', '4 ids per ms, no node bits', 10, 1500 ])
{
	my ($db, $what, $batch, $n) = @$case;
	my $c = start_client(conninfo_as($node, $db, 'app', 'app'), "$dir/steps-$db-$batch.txt", 8, $n, $batch);
	my $i = 0;
	while ($c->{h}->pumpable)
	{
		set_clock($node, $steps[ $i++ % @steps ]);
		usleep(150_000);
		$c->{h}->pump_nb;
	}
	is(finish_client($c), 0,
		"8 sessions, $what, $batch per round trip, clock stepping back and forth ($i steps): no duplicate, each increasing");
	set_clock($node, '+0');
}
$node->stop;
done_testing();
