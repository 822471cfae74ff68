# Handing an identity over to another node (issue 25, D2).
#
# After a crash restart the id word starts at the durable mark, up to a
# second ahead of the clock, and the default borrow policy issues ids there.
# A reload to another worker soon after leaves ids of the old worker
# timestamped after the switch.  So the node reports the latest time its old
# identity's ids carry (snowflake_status.retired_until), the registry never
# hands the pair to another node before then, and a node configured with
# that pair holds its ids back until its own clock is past it.
#
#   node A: worker 10, configured, with a registry: ids streamed through a
#     crash restart and a reload to worker 11 50 ms after it;
#   the registry (its clock 30 s behind, so that "before retired_until" lasts
#     long enough to be checked): records 0/10 as retired until A's
#     retired_until, and refuses to hand it out;
#   node B: configured with worker 10 too, started while the pair is
#     retired (A's report raised on the registry, as if A had borrowed
#     further ahead): ids refused with a message until its clock is past
#     that time, then ids after it;
#   node C: a registry node that moves to a configured identity: its claim
#     is reported retired.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use Time::HiRes qw(usleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

my $registry = PostgreSQL::Test::Cluster->new('handover_registry');
$registry->init;
set_clock($registry, '-30');
start_node($registry, faketime => 1);
$registry->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $registry_conn = 'host=' . $registry->host . ' port=' . $registry->port . ' dbname=postgres';
# The nodes accept the registry's clock 30 s off (snowflake.registry_max_skew):
# their ids then keep within what the registry promised on its clock
# (064_registry_clock_skew.pl).
my $registry_line = "snowflake.registry = '$registry_conn'\nsnowflake.registry_max_skew = '60s'";

sub reg { return $registry->safe_psql('postgres', $_[0]); }

sub ms_of
{
	my ($node, $col) = @_;
	return $node->safe_psql('postgres',
		"SELECT (extract(epoch FROM $col) * 1000)::bigint FROM snowflake_status");
}

# ---- Node A: worker 10, ids streamed through a crash restart and a reload.
my $a = new_node('handover_a');
$a->append_conf('postgresql.conf', 'restart_after_crash = on');
set_case($a, 'snowflake.datacenter_id = 0', 'snowflake.worker_id = 10', $registry_line);
$a->start;
$a->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$registry->poll_query_until('postgres',
	"SELECT kind = 'configured' FROM snowflake_registry WHERE (datacenter_id, worker_id) = (0, 10)")
  or die 'node A never reserved 0/10';
pass('node A, configured with 0/10, reserved it on the registry');

my $out = $a->basedir . '/stream.txt';
my $client = start_client($a->connstr('postgres'), $out, 1, 100_000_000, 50, '--reconnect',
	'--after-reconnect', 200_000);
$a->poll_query_until('postgres', 'SELECT ids_issued > 20000 FROM snowflake_status')
  or die 'no ids streamed';
my $offset = -s $a->logfile;
kill 'KILL', worker_pid($a, 'autovacuum launcher');
$a->wait_for_log(qr/database system is ready to accept connections/, $offset);
usleep(50_000);
set_case($a, 'snowflake.datacenter_id = 0', 'snowflake.worker_id = 11', $registry_line);
$a->reload;
$a->poll_query_until('postgres', 'SELECT worker_id = 11 FROM snowflake_status')
  or die 'the reload did not take effect';
my $switched = now_unix_ms();
my $until = ms_of($a, 'retired_until');
is($a->safe_psql('postgres', 'SELECT retired_identity FROM snowflake_status'), '0/10',
	'the reload retired 0/10');
is(finish_client($client), 0, 'the stream: one session, increasing, all distinct, through the crash');

my (@w10, @w11);
open my $fh, '<', $out or die "$out: $!";
while (<$fh>)
{
	my ($s, $id) = split;
	next unless $id =~ /^\d+$/;
	my $w = decode_id($id)->{worker_id};
	push @w10, $id if $w == 10;
	push @w11, $id if $w == 11;
}
close $fh;
ok(@w10 && @w11, scalar(@w10) . ' ids of worker 10, then ' . scalar(@w11) . ' of worker 11');
my $late = grep { unix_ms_of($_) > $switched } @w10;
note "ids of worker 10 timestamped after snowflake_status showed worker 11: $late; "
  . 'the last ' . (unix_ms_of(max(@w10)) - $switched) . ' ms after it; retired_until '
  . ($until - $switched) . ' ms after it';
cmp_ok(unix_ms_of(max(@w10)), '<=', $until,
	'every id of worker 10, borrowed ahead of the clock after the crash restart, is at or before retired_until');
cmp_ok(min(@w11), '>', max(@w10), 'and the ids of worker 11 come after them');

# ---- The registry learns it, and refuses the pair until then.
$registry->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM snowflake_registry_retired WHERE (datacenter_id, worker_id) = (0, 10)")
  or die 'the registry never learned that A left 0/10';
is(reg("SELECT (extract(epoch FROM retired_until) * 1000)::bigint FROM snowflake_registry_retired
        WHERE (datacenter_id, worker_id) = (0, 10)"), $until,
	'the registry records 0/10 as retired until A\'s retired_until');
is(reg("SELECT datacenter_id || '/' || worker_id || ' ' || kind FROM snowflake_registry
        WHERE node_key LIKE '%:' || " . $a->port),
	'0/11 configured', 'A\'s reservation moved to 0/11');
my $claimed = reg("SELECT datacenter_id || '/' || worker_id
                   FROM snowflake_registry_renew('test:claimer:1', 5, 5, 0, 10)");
isnt($claimed, '0/10', "a node asking for 0/10 before retired_until gets another pair ($claimed)");
isnt(reg("SELECT datacenter_id || '/' || worker_id FROM snowflake_registry_claim('test:claimer:2')"),
	'0/10', 'and so does a new claim');
reg("DELETE FROM snowflake_registry WHERE node_key LIKE 'test:%'");

# ---- Node B, configured with 0/10 too.  So that it starts well before
# the pair's retired_until (A's lies within a second of the switch), A's
# report is raised on the registry as if A had borrowed 20 s further ahead:
# B's start, its registry's answer and CREATE EXTENSION must all come before
# that, on a machine busy with other suites too (6 s was not always enough).
my $key_a = reg("SELECT node_key FROM snowflake_registry WHERE (datacenter_id, worker_id) = (0, 11)");
my $held_until = now_unix_ms() + 20000;
reg("SELECT snowflake_registry_retire('$key_a', 0, 10, 'epoch'::timestamptz + $held_until * interval '1 ms')");
my $b = new_node('handover_b');
set_case($b, 'snowflake.datacenter_id = 0', 'snowflake.worker_id = 10', $registry_line);
$b->start;
$b->wait_for_log(qr/snowflake registrar: node \S+ retired datacenter_id 0 worker_id 10 until $held_until/)
  or die 'node B never heard from the registry';
$b->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my ($ret, $stdout, $stderr) = $b->psql('postgres', 'SELECT snowflake_nextval()');
like($stderr, qr/snowflake ids under datacenter_id 0 worker_id 10 are held back until/,
	'node B refuses ids under 0/10 with a message');
like($stderr, qr/DETAIL:  The snowflake registry says node \S+ retired it/, '... saying why');
$b->poll_query_until('postgres', "SELECT pg_read_file('snowflake.state') LIKE '%identity_not_before_unix_ms $held_until%'")
  or diag 'the state file never recorded the time';
is(read_state($b)->{identity_not_before_unix_ms}, $held_until,
	'B records the time in its state file (a restart holds back too)');
$b->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM (SELECT snowflake_nextval()) s", 't')
  or die 'node B never issued an id';
my @b_ids = split /\n/, $b->safe_psql('postgres', 'SELECT snowflake_generate(1000)');
cmp_ok(min(map { unix_ms_of($_) } @b_ids), '>', $held_until,
	'once its clock is past that time, B issues ids under 0/10, all of them later');
cmp_ok(min(@b_ids), '>', max(@w10), 'above every id A issued under it');
$b->stop;

# ---- Node C, a registry node, moves to a configured identity: its claim
# is reported retired.
my $c = new_node('handover_c');
set_case($c, $registry_line, 'snowflake.worker_id = -1');
$c->start;
$c->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$c->poll_query_until('postgres', 'SELECT worker_id IS NOT NULL FROM snowflake_status')
  or die 'node C never claimed';
my $pair_c = $c->safe_psql('postgres', "SELECT datacenter_id || '/' || worker_id FROM snowflake_status");
$c->safe_psql('postgres', 'SELECT snowflake_generate(1000)');
set_case($c, $registry_line, 'snowflake.datacenter_id = 0', 'snowflake.worker_id = 20');
$c->reload;
$c->poll_query_until('postgres', 'SELECT worker_id = 20 FROM snowflake_status') or die 'no reload';
my ($rdc, $rw) = split m{/}, $pair_c;
$registry->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM snowflake_registry_retired WHERE (datacenter_id, worker_id) = ($rdc, $rw)")
  or die 'the registry never learned that C left its claim';
is(reg("SELECT (extract(epoch FROM retired_until) * 1000)::bigint FROM snowflake_registry_retired
        WHERE (datacenter_id, worker_id) = ($rdc, $rw)"), ms_of($c, 'retired_until'),
	"the claim C left ($pair_c) is retired until C's retired_until");
$registry->poll_query_until('postgres',
	"SELECT kind = 'configured' FROM snowflake_registry WHERE (datacenter_id, worker_id) = (0, 20)")
  or die 'node C never reserved 0/20';
pass('and C reserves its configured 0/20');

$_->stop foreach ($a, $c, $registry);
done_testing();
