# A cancel at any statement boundary of the functions that take the SQL
# edition's lock (the slow path, snowflake_start_above) leaves no lock
# behind.  The edition is built with a call at every statement boundary of
# them (SNOWFLAKE_SQL_BOUNDARIES, sql_edition/build.sh); the call sleeps at
# the boundary the session names, so that statement_timeout fires exactly
# there.  For each boundary, in each of the paths the slow path takes (a new
# millisecond, the millisecond's ids used up, borrowing ahead of the clock):
# the call is cancelled there, or never passes there; after a cancel the
# session holds no lock of the edition, and another session moves the node to
# a new millisecond at once (lock_timeout).  Also: no other role can take the
# lock.  Plain script, no pg_tle needed.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use lib "$FindBin::RealBin/../t";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest qw(start_node tree_root);
use SqlEditionTest;

my $node = plain_node('interrupts');
start_node($node);
my $dir = $node->basedir . '/dist';
my $build = `SNOWFLAKE_SQL_BOUNDARIES=1 sh '@{[tree_root()]}/sql_edition/build.sh' '$dir' 0.0 2>&1`;
is($?, 0, 'the edition built with a call at every statement boundary') or diag $build;

add_role($node, 'owner1', 'CREATE SCHEMA ids AUTHORIZATION owner1');
add_role($node, 'other', 'GRANT USAGE ON SCHEMA ids TO other');
install_plain($node, 'postgres', 'owner1', 'ids', "$dir/snowflake_sql.sql");
safe_psql_as($node, 'postgres', 'owner1', <<'EOS');
SELECT ids.snowflake_configure(worker_id => 1);
-- Sleeps (until statement_timeout cancels it) at the boundary the session names.
CREATE FUNCTION ids.snowflake_sql_test_boundary(n integer) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog AS $$
BEGIN
    IF n = current_setting('snowflake_sql_test.boundary', true)::integer THEN
        RAISE NOTICE 'at boundary %', n;
        PERFORM pg_sleep(60);
    END IF;
END
$$;
EOS
safe_psql_as($node, 'postgres', 'owner1', doc_block('app-grants.sql') =~ s/\bapp\b/other/gr);

# The boundaries of a function, and the statement before each.
sub boundaries
{
	my ($fn) = @_;
	my $src = $node->safe_psql('postgres', "SELECT prosrc FROM pg_proc WHERE oid = '$fn'::regproc");
	my %after = $src =~ /snowflake_sql_test_boundary\((\d+)\);  -- after: ([^\n]*)/g;
	return %after;
}

my $s = open_session($node, 'postgres', 'owner1');
my $pid = session_do($s, 'SELECT pg_backend_pid()');
my $locks = "SELECT count(*) FROM pg_locks WHERE pid = $pid "
  . "AND (locktype = 'advisory' OR relation = 'ids.snowflake_sql_lock'::regclass)";
my @ids;

# Runs $call in the session with a cancel at boundary $n (after $prep);
# returns whether it was cancelled there, and checks what it left.
sub cancel_at
{
	my ($n, $prep, $call, $leaks) = @_;
	session_do($s, $prep) if $prep;
	session_do($s, "SET snowflake_sql_test.boundary = $n");
	session_do($s, "SET statement_timeout = '300ms'");
	my ($out, $err) = session_do($s, $call);
	session_do($s, 'RESET statement_timeout');
	session_do($s, 'RESET snowflake_sql_test.boundary');
	push @ids, $out if $out =~ /^\d+$/;
	my $hit = $err =~ /NOTICE:  at boundary $n\b/ && $err =~ /canceling statement due to statement timeout/;
	die "boundary $n: $err" if !$hit && $err =~ /ERROR/;
	if ($hit)
	{
		my $held = $node->safe_psql('postgres', $locks);
		# Another session needs the lock (a new millisecond) at once.
		my ($ret, $o, $e) = psql_as($node, 'postgres', 'other',
			"SET lock_timeout = '2s'; SELECT pg_sleep(0.002); SELECT ids.snowflake_nextval()");
		push @ids, (split /\n/, $o)[-1] if $ret == 0;
		push @$leaks, "$n (held $held; other session: " . ($ret == 0 ? 'ok' : $e) . ')'
		  if $held ne '0' || $ret != 0;
	}
	return $hit;
}

my %scenario = (
	'a new millisecond' => 'SELECT pg_sleep(0.002)',
	"the millisecond's ids used up" =>
	  "SELECT setval('ids.snowflake_sql_counter', pg_sequence_last_value('ids.snowflake_sql_bound'))",
	# 50 ms ahead of the clock, used up: the slow path borrows the next one.
	'borrowing ahead' => 'SELECT ids.snowflake_start_above(ids.snowflake_nextval() + (50::bigint << 22))');

my %slow = boundaries('ids.snowflake_sql_next_slow');
cmp_ok(scalar(keys %slow), '>', 40, scalar(keys %slow) . ' boundaries in the slow path');
my (%hit, @leaks);
for my $sc (sort keys %scenario)
{
	for my $n (sort { $a <=> $b } keys %slow)
	{
		$hit{$n}++ if cancel_at($n, $scenario{$sc}, 'SELECT ids.snowflake_sql_next_slow()', \@leaks);
	}
}
is(join(', ', @leaks), '', 'the slow path: no cancel left a lock, or stalled another session');
my ($lock) = grep { $slow{$_} =~ /^LOCK TABLE/ } keys %slow;
ok($lock && $hit{$lock}, "... cancelled right after it took the lock (boundary $lock)");
is(scalar(grep { $slow{$_} =~ /setval/ && $hit{$_} } keys %slow), 2, '... and after each setval');
note('slow path, boundaries never reached (error branches, after a RETURN): '
	  . join(', ', map { "$_ ($slow{$_})" } grep { !$hit{$_} } sort { $a <=> $b } keys %slow));
cmp_ok(scalar(keys %hit), '>=', 25, scalar(keys %hit) . ' of them reached and cancelled');

my %above = boundaries('ids.snowflake_start_above');
my (%hit2, @leaks2);
for my $n (sort { $a <=> $b } keys %above)
{
	$hit2{$n}++
	  if cancel_at($n, undef, 'SELECT ids.snowflake_start_above(ids.snowflake_nextval())', \@leaks2);
}
is(join(', ', @leaks2), '', 'snowflake_start_above: no cancel left a lock, or stalled another session');
($lock) = grep { $above{$_} =~ /^LOCK TABLE/ } keys %above;
ok($lock && $hit2{$lock}, "... cancelled right after it took the lock (boundary $lock)");
is(scalar(grep { $above{$_} =~ /setval/ && $hit2{$_} } keys %above), 2, '... and after each setval');

push @ids, split /\n/, session_do($s, 'SELECT ids.snowflake_nextval() FROM generate_series(1, 2000)');
close_session($s);
ok(all_distinct(@ids), scalar(@ids) . ' ids made in between, all distinct');

# ---- no other role can take the lock ----------------------------------------
my ($ret, $out, $err) = psql_as($node, 'postgres', 'other',
	'BEGIN; LOCK TABLE ids.snowflake_sql_lock IN ACCESS SHARE MODE');
like($err, qr/permission denied for table snowflake_sql_lock/,
	'a role with the grants of docs/managed.md cannot lock the edition\'s lock');
my $holder = open_session($node, 'postgres', 'other');
session_do($holder, 'BEGIN');
session_do($holder, 'SELECT count(*) FROM ids.snowflake_status');
my ($o2, $e2) = session_do($holder, 'SELECT * FROM ids.snowflake_sql_lock FOR UPDATE');
like($e2, qr/permission denied/, '... nor lock its rows');
($ret, $out, $err) = psql_as($node, 'postgres', 'owner1',
	"SET lock_timeout = '2s'; SELECT pg_sleep(0.002); SELECT ids.snowflake_sql_next_slow()");
is($ret, 0, '... and its open transaction stalls nobody') or diag $err;
session_do($holder, 'ROLLBACK');
close_session($holder);

$node->stop;
done_testing();
