# Harmless to the host (issue 17): what the extension does to a server
# beyond issuing ids.
#   - The reserver sleeps while the node is idle, and a clean shutdown logs
#     no FATAL for it.
#   - Single-user mode issues ids at once (it reserves the mark itself).
#   - After a backend crash, the state file's mark is not lowered from the
#     shared memory PostgreSQL discards.
#   - After an immediate shutdown, the restart starts at the last id's
#     millisecond (the state file's lowered mark), not at the marks crash
#     recovery replays from the WAL, which run up to a second ahead.
#   - ALTER SYSTEM refuses a width the next start would refuse, and warns
#     when ids were issued under the running layout.
#   - The server starts while its clock is behind a configured epoch; ids
#     say why they cannot be made.
#   - A standby replaying marks writes its state file lazily, and has the
#     last mark in it after promotion and after a clean stop.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use Time::HiRes qw(time usleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

# Voluntary context switches of a process so far (each wake-up is one).
sub wakeups
{
	my ($pid) = @_;
	my $status = slurp_file("/proc/$pid/status");
	my ($n) = $status =~ /^voluntary_ctxt_switches:\s+(\d+)/m;
	return $n;
}

my $node = new_node('host');
# A crash restarts the server (the test framework turns that off).
$node->append_conf('postgresql.conf', 'restart_after_crash = on');
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');

# ---- The reserver sleeps on an idle node, and wakes for the next id.
$node->safe_psql('postgres', 'SELECT count(*) FROM snowflake_generate(1000)');
my $reserver = worker_pid($node, 'snowflake reserver');
ok($reserver, "the reserver runs (pid $reserver)");
usleep(2_000_000);    # past the second of ticks after the last id
my $w0 = wakeups($reserver);
usleep(3_000_000);
my $idle_wakeups = wakeups($reserver) - $w0;
cmp_ok($idle_wakeups, '<=', 3, "an idle node's reserver sleeps ($idle_wakeups wake-ups in 3 s)");
my $t0 = time;
my $id = $node->safe_psql('postgres', 'SELECT snowflake_nextval()');
like($id, qr/^\d+$/, sprintf('the first id after the idle spell comes (%.0f ms)', 1000 * (time - $t0)));

# ---- A clean shutdown logs no FATAL for the reserver.
my $offset = -s $node->logfile;
$node->stop;
my $log = slurp_file($node->logfile, $offset);
unlike($log, qr/FATAL:.*snowflake/, 'a clean shutdown logs no FATAL from a snowflake worker');
like($log, qr/database system is shut down/, 'and the server did shut down');

# ---- Single-user mode: ids at once, above the last one.
my $before = $id;
my $single_in = "SELECT 'id=' || snowflake_nextval()\n";
my ($stdout, $stderr);
$t0 = time;
IPC::Run::run([ 'postgres', '--single', '-D', $node->data_dir, 'postgres' ],
	'<', \$single_in, '>', \$stdout, '2>', \$stderr);
my $single_s = time - $t0;
my ($single_id) = $stdout =~ /id=(\d+)/;
ok(defined $single_id, sprintf('single-user mode issues an id (%.1f s)', $single_s))
  or diag("stdout: $stdout\nstderr: $stderr");
cmp_ok($single_s, '<', 5, 'without waiting for a reserver that does not run there');
cmp_ok($single_id // 0, '>', $before, 'above every id issued before');
cmp_ok(read_state($node)->{mark_unix_ms}, '>=', unix_ms_of($single_id // 0),
	'and the state file covers it');
$node->start;
cmp_ok($node->safe_psql('postgres', 'SELECT snowflake_nextval()'), '>', $single_id // 0,
	'the server then issues ids above it');

# ---- A child crash: the mark stays where the file had it.  (Lowering it to
# the last id's millisecond, as a clean stop does, would read the shared
# memory PostgreSQL discards as possibly corrupt.)
$node->safe_psql('postgres', 'SELECT count(*) FROM snowflake_generate(1000)');
my $mark = read_state($node)->{mark_unix_ms};
cmp_ok($mark, '>', unix_ms_of($node->safe_psql('postgres', 'SELECT snowflake_nextval()')),
	'the mark is reserved ahead of the last id');
$mark = read_state($node)->{mark_unix_ms};
$offset = -s $node->logfile;
my $launcher = worker_pid($node, 'autovacuum launcher');
kill 'KILL', $launcher;
$node->wait_for_log(qr/database system is ready to accept connections/, $offset);
like(slurp_file($node->logfile, $offset), qr/terminated by signal 9/,
	'a child was killed and the server reinitialised');
cmp_ok(read_state($node)->{mark_unix_ms}, '>=', $mark,
	'after the crash restart the state file mark is not lowered');

# ---- An immediate shutdown: the file's mark comes down to the last id,
# and crash recovery does not raise it again to the reservations it
# replays from the WAL.
$node->safe_psql('postgres', 'SELECT count(*) FROM snowflake_generate(1000)');
my $last_id = $node->safe_psql('postgres', 'SELECT snowflake_nextval()');
cmp_ok(read_state($node)->{mark_unix_ms}, '>', unix_ms_of($last_id),
	'while ids are issued the mark is reserved ahead of the last id');
$node->stop('immediate');
is(read_state($node)->{mark_unix_ms}, unix_ms_of($last_id),
	'an immediate shutdown lowers the mark to the last id\'s millisecond');
$offset = -s $node->logfile;
$node->start;
like(slurp_file($node->logfile, $offset), qr/redo starts at/, 'the restart runs crash recovery');
is($node->safe_psql('postgres',
		'SELECT (extract(epoch FROM durable_mark) * 1000)::bigint FROM snowflake_status'),
	unix_ms_of($last_id), 'which leaves the mark at the last id, not at a replayed reservation');
my $first = $node->safe_psql('postgres', 'SELECT snowflake_nextval()');
my $clock = server_unix_ms($node);
cmp_ok($first, '>', $last_id, 'the first id after it is above the last one');
cmp_ok(unix_ms_of($first), '<=', ($clock > unix_ms_of($last_id) + 1 ? $clock : unix_ms_of($last_id) + 1),
	'and no further ahead of the clock than the last id forces');

# ---- ALTER SYSTEM of a layout setting.
my ($ret, $out, $err) = $node->psql('postgres', 'ALTER SYSTEM SET snowflake.sequence_bits = 20');
isnt($ret, 0, 'ALTER SYSTEM SET snowflake.sequence_bits = 20 is refused');
like($err, qr/invalid value for parameter "snowflake.sequence_bits": 20/, 'naming the setting');
like($err, qr/DETAIL:  Valid values are 1 to 18 with snowflake.datacenter_bits = 5 and snowflake.worker_bits = 5/,
	'with its valid range under the other widths');
ok(!grep(/sequence_bits/, split /\n/, slurp_file($node->data_dir . '/postgresql.auto.conf')),
	'and nothing is written to postgresql.auto.conf');
($ret, $out, $err) = $node->psql('postgres', 'ALTER SYSTEM SET snowflake.sequence_bits = 14');
is($ret, 0, 'a width valid with the others is accepted');
like($err, qr/WARNING:  the server will refuse to start with this value of snowflake.sequence_bits/,
	'with a WARNING: this node issued ids under the running layout');
($ret, $out, $err) = $node->psql('postgres', "ALTER SYSTEM SET snowflake.epoch = '2030-01-01'");
like($err, qr/WARNING:  the server will refuse to start with this value of snowflake.epoch/,
	'moving the epoch later warns the same way');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET snowflake.sequence_bits');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET snowflake.epoch');
$node->stop;

# ---- The clock behind a configured epoch: the server starts, ids say why.
my $future = PostgreSQL::Test::Cluster->new('future_epoch');
$future->init;
my $epoch_ms = now_unix_ms() + 86_400_000;
$future->append_conf('postgresql.conf', <<"EOC");
shared_preload_libraries = 'snowflake'
snowflake.worker_id = 3
snowflake.epoch = $epoch_ms
EOC
ok($future->start(fail_ok => 1), 'a server whose clock is behind snowflake.epoch starts');
$future->safe_psql('postgres', 'CREATE EXTENSION snowflake');
($ret, $out, $err) = $future->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/ERROR:  system clock is \d+ ms before snowflake.epoch/, 'ids report the clock behind the epoch');
is($future->safe_psql('postgres', 'SELECT count(*) FROM pg_class WHERE relname = \'pg_class\''), '1',
	'and everything else works');
$future->stop;
my $bad = PostgreSQL::Test::Cluster->new('bad_epoch');
$bad->init;
$bad->append_conf('postgresql.conf', "shared_preload_libraries = 'snowflake'\nsnowflake.epoch = '10000-01-01'\n");
ok(!$bad->start(fail_ok => 1), 'an epoch out of range still refuses start');
like(slurp_file($bad->logfile), qr/invalid value for parameter "snowflake.epoch"/, 'naming the setting');

# ---- A standby writes its state file lazily while it replays marks.
my $primary = new_primary('lazy_primary', 'snowflake.worker_id = 7');
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$primary->safe_psql('postgres', 'SELECT snowflake_nextval()');
$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('lazy_standby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->start;
my $file_before = read_state($standby)->{mark_unix_ms};
# About 3 s of activity on the primary: a mark every half second.
$primary->safe_psql('postgres', <<'EOS');
DO $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
  WHILE clock_timestamp() < t0 + interval '3 s' LOOP
    PERFORM snowflake_nextval();
    PERFORM pg_sleep(0.01);
  END LOOP;
END $$;
EOS
my $last = $primary->safe_psql('postgres', 'SELECT snowflake_nextval()');
$primary->wait_for_catchup($standby);
my $replayed = $standby->safe_psql('postgres',
	'SELECT (extract(epoch FROM durable_mark) * 1000)::bigint FROM snowflake_status');
cmp_ok($replayed, '>=', unix_ms_of($last), "the standby's mark in force covers the primary's last id");
# The file is written only once the replayed mark is 10 s past the file's.
# Normally the 3 s of marks stay inside that, so the file lags; on a machine
# slow enough that the standby's start took the marks past it, one write
# holds a mark at least 10 s above the one the file had.
my $file_after = read_state($standby)->{mark_unix_ms};
ok($file_after < $replayed || $file_after >= $file_before + 10000,
	"its state file lags the replayed marks (no write per mark): file $file_before -> $file_after, replayed $replayed");
$standby->stop;
cmp_ok(read_state($standby)->{mark_unix_ms}, '>=', $replayed,
	'a clean stop of the standby writes the last replayed mark');
$standby->start;
$primary->safe_psql('postgres', 'SELECT count(*) FROM snowflake_generate(10)');
$last = $primary->safe_psql('postgres', 'SELECT snowflake_nextval()');
$primary->wait_for_catchup($standby);
$primary->stop;
$standby->promote;
cmp_ok(read_state($standby)->{mark_unix_ms}, '>=', unix_ms_of($last),
	'after promotion the state file holds the last replayed mark');
cmp_ok($standby->safe_psql('postgres', 'SELECT snowflake_nextval()'), '>', $last,
	'and the promoted standby issues ids above the old primary\'s');
$standby->stop;

done_testing();
