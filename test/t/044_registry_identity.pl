# A node's identity from the registry survives everything that restarts it
# (issue 11, findings 1 and 8): a crash-restart cycle (kill -9 of one
# backend), a clean restart, a kill -9 of the whole server, the registrar
# killed before or after its claim -- with the registry reachable (the claim
# of the same node key returns the same pair) or not (the pair recorded in
# snowflake.state is resumed, and ids under it wait for the registry's
# confirmation, issue 32).  And the registry's rules: an explicit
# worker_id always wins, also over a late claim; only the node that made a
# claim resumes it; a configured identity in the state file is not a claim;
# a claim under other widths is refused; a stale claim is released only
# once stale, and a node coming back after a release never shares its pair.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use SnowflakeTest;

my $registry = PostgreSQL::Test::Cluster->new('registry');
$registry->init;
$registry->start;
$registry->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $registry_conn = 'host=' . $registry->host . ' port=' . $registry->port . ' dbname=postgres';

# A node in registry mode; per-case settings go to snowflake_case.conf.
sub registry_node
{
	my ($name, %init) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(%init);
	$node->append_conf('postgresql.conf', <<"EOC");
shared_preload_libraries = 'snowflake'
snowflake.registry = '$registry_conn'
restart_after_crash = on
snowflake.registry_wait_timeout = 1000
include_if_exists 'snowflake_case.conf'
EOC
	set_case($node);
	return $node;
}

sub pair
{
	my ($node) = @_;
	return $node->safe_psql('postgres',
		'SELECT coalesce(datacenter_id || $$|$$ || worker_id, $$none$$) FROM snowflake_status');
}

# Waits until the node holds an identity; returns "dc|worker".
sub claimed
{
	my ($node) = @_;
	$node->poll_query_until('postgres', 'SELECT worker_id IS NOT NULL FROM snowflake_status')
	  or die $node->name . ' never got a worker id';
	return pair($node);
}

# The pair the ids of the node carry (issues one id).
sub id_pair
{
	my ($node) = @_;
	return $node->safe_psql('postgres',
		'SELECT datacenter_id || $$|$$ || worker_id FROM snowflake_parse(snowflake_nextval())');
}

# The error of an id while the registry has not confirmed the node's pair.
sub id_waits
{
	my ($node) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_nextval()');
	return $ret != 0
	  && $err =~ /wait for the registry to confirm the pair to this node/;
}

sub registrar_pid { return worker_pid($_[0], 'snowflake registrar') // 0; }

# Waits for a registrar process other than $old; returns its pid (0 if none
# came).
sub new_registrar
{
	my ($node, $old) = @_;
	foreach (1 .. 10 * $PostgreSQL::Test::Utils::timeout_default)
	{
		my $pid = registrar_pid($node);
		return $pid if $pid && $pid != $old;
		usleep(100_000);
	}
	return 0;
}

sub claims
{
	return $registry->safe_psql('postgres', 'SELECT count(*) FROM snowflake_registry');
}

sub registry_pair
{
	my ($key_like) = @_;
	return $registry->safe_psql('postgres',
		"SELECT datacenter_id || '|' || worker_id FROM snowflake_registry WHERE node_key LIKE '$key_like'");
}

# Kills one backend with SIGKILL: the postmaster restarts every process and
# reinitialises shared memory (a crash-restart cycle).  Waits until the
# server accepts connections again.
sub crash_one_backend
{
	my ($node) = @_;
	my $offset = -s $node->logfile;
	my $bg = $node->background_psql('postgres');
	my $pid = $bg->query_safe('SELECT pg_backend_pid()');
	kill 'KILL', $pid;
	$node->wait_for_log(qr/all server processes terminated; reinitializing/, $offset)
	  or die 'no crash-restart cycle';
	$node->poll_query_until('postgres', 'SELECT 1', '1') or die 'server did not come back';
	eval { $bg->quit };
}

my ($ret, $out, $err, $offset, $pid);

# ---- A node claims; the claim is recorded in snowflake.state.
my $node_a = registry_node('node_a');
$node_a->start;
$node_a->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $pa = claimed($node_a);
is(id_pair($node_a), $pa, "node_a claimed $pa and its ids carry it");
$node_a->poll_query_until('postgres', "SELECT pg_read_file('snowflake.state') LIKE '%registry_node_key %'")
  or diag 'state file never recorded the claim';
my $st = read_state($node_a);
is($st->{header}, 'snowflake-state 3', 'snowflake.state records a registry claim');
is("$st->{datacenter_id}|$st->{worker_id}", $pa, '... with the claimed pair');
like($st->{registry_node_key} // '', qr/^\d+:.+:\d+$/, '... and the node key it was claimed under');
my $key_a = $st->{registry_node_key} // 'none';
is(registry_pair($key_a), $pa, 'the registry holds the same pair under that key');

# ---- The registrar killed after its claim: it comes back and renews; the
# pair never changes.
$pid = registrar_pid($node_a);
ok($pid > 0, 'the registrar keeps running after its claim (it renews the claim)');
$offset = -s $node_a->logfile;
kill 'TERM', $pid if $pid > 0;    # (never 0: that is the process group)
is(pair($node_a), $pa, 'registrar killed after its claim: the node keeps its pair');
my $pid2 = new_registrar($node_a, $pid);
ok($pid2 > 0, 'the registrar is started again');
ok($node_a->wait_for_log(qr/the registry confirmed the claim of node \Q$key_a\E: datacenter_id \d+ worker_id \d+/, $offset),
	'the new registrar has the claim confirmed by the registry');
is(pair($node_a), $pa, 'same pair after the renewal');
is(claims(), '1', 'no new claim in the registry');

# ---- Crash-restart cycle (kill -9 of one backend), registry reachable.
my $before = $node_a->safe_psql('postgres', 'SELECT snowflake_nextval()');
crash_one_backend($node_a);
is(claimed($node_a), $pa, 'after a crash-restart cycle the node has its pair back');
my $after = $node_a->safe_psql('postgres', 'SELECT snowflake_nextval()');
is(id_pair($node_a), $pa, '... and issues ids under it');
cmp_ok($after, '>', $before, '... above the ids issued before the crash');
is(claims(), '1', '... with no new claim');

# ---- Crash-restart cycle with the registry unreachable: resumed from
# snowflake.state.
$registry->stop;
$offset = -s $node_a->logfile;
crash_one_backend($node_a);
is(claimed($node_a), $pa, 'crash-restart cycle, registry down: the recorded pair is resumed');
ok(id_waits($node_a), '... but no id is issued under it before the registry confirms it');
ok($node_a->wait_for_log(qr/resuming the registry claim of node \Q$key_a\E recorded in snowflake.state/, $offset),
	'... as the log says');

# ---- Clean restart with the registry unreachable.
$node_a->restart;
is(pair($node_a), $pa, 'clean restart, registry down: the pair is there at once');
ok(id_waits($node_a), '... and ids wait for the registry');
$offset = -s $node_a->logfile;
$registry->start;
ok($node_a->wait_for_log(qr/the registry confirmed the claim of node \Q$key_a\E/, $offset),
	'once the registry is back, it confirms the same pair');
is(id_pair($node_a), $pa, '... and ids flow under it');
is(claims(), '1', 'still one claim');

# ---- Clean restart, registry reachable.
$node_a->restart;
is(claimed($node_a), $pa, 'clean restart, registry up: the same pair');

# ---- kill -9 of the whole server right after a claim, before any id: the
# claim is recorded at once, so it is resumed without the registry.
my $node_c = registry_node('node_c', allows_streaming => 1);
$node_c->start;
$node_c->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $pc = claimed($node_c);
isnt($pc, $pa, "node_c claimed another pair ($pc)");
$node_c->poll_query_until('postgres', "SELECT pg_read_file('snowflake.state') LIKE '%registry_node_key %'")
  or diag 'state file never recorded the claim';
my $key_c = read_state($node_c)->{registry_node_key} // 'none';
# A base backup now carries node_c's recorded claim (used below).
$node_c->backup('c_backup');
$registry->stop;
crash($node_c);
$node_c->start;
is(pair($node_c), $pc, 'kill -9 before the first id, registry down: the claim is resumed');
ok(id_waits($node_c), '... and ids wait for the registry');

# ---- Only the node that made the claim resumes it: a pg_basebackup clone
# (same system identifier, its own port) has another node key and claims anew.
my $clone = PostgreSQL::Test::Cluster->new('node_c_clone');
$clone->init_from_backup($node_c, 'c_backup');
is(read_state($clone)->{registry_node_key}, $key_c, 'the clone has node_c\'s snowflake.state, claim and all');
$offset = -s $clone->logfile;
$clone->start;
is(pair($clone), 'none', 'the clone does not resume node_c\'s claim');
($ret, $out, $err) = $clone->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/snowflake.worker_id is not set and is waiting for the registry/,
	'... it waits for the registry instead');
ok($clone->wait_for_log(qr/snowflake.state holds the registry claim of node \Q$key_c\E, not of this node/, $offset),
	'... and the log says why');
$clone->stop;
$registry->start;

# ---- The registrar killed before its claim: it is started again and claims.
$registry->stop;
my $node_b = registry_node('node_b');
$node_b->start;
$node_b->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$pid = new_registrar($node_b, 0);
ok($pid > 0, 'node_b runs a registrar');
is(pair($node_b), 'none', 'registry down: node_b has no pair yet');
kill 'TERM', $pid if $pid > 0;    # (never 0: that is the process group)
ok(new_registrar($node_b, $pid) > 0, 'registrar killed before its claim: it is started again');
$registry->start;
my $pb = claimed($node_b);
ok($pb ne $pa && $pb ne $pc, "... and claims a pair of its own ($pb) once the registry is back");

# ---- A configured identity recorded in the state file is not a claim: a
# node moved from worker_id to the registry does not resume it.
my $node_d = registry_node('node_d');
set_case($node_d, 'snowflake.worker_id = 9', 'snowflake.datacenter_id = 2');
$node_d->start;
$node_d->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is(id_pair($node_d), '2|9', 'node_d issues ids under its configured 2|9');
$node_d->stop;
ok(!exists read_state($node_d)->{registry_node_key}, 'a configured identity is recorded with no node key');
set_case($node_d);
$registry->stop;
$node_d->start;
is(pair($node_d), 'none', 'worker_id removed, registry down: 2|9 is not taken for a claim');
$node_d->stop;
$registry->start;

# ---- An explicit worker_id wins over a recorded claim at start ...
set_case($node_a, 'snowflake.worker_id = 30', 'snowflake.datacenter_id = 30');
$node_a->restart;
is(pair($node_a), '30|30', 'worker_id set over a recorded claim: the configured identity is used');
is(id_pair($node_a), '30|30', '... for the ids too');
# ... and removing it again, the node gets its claim back from the registry.
set_case($node_a);
$node_a->restart;
is(claimed($node_a), $pa, 'worker_id removed again: the registry gives back the same pair');

# ---- ... and over a late claim: worker_id set and reloaded while the claim
# is on its way.  The registry's table is locked, so the claim waits there.
my $lock = $registry->background_psql('postgres');
$lock->query_safe('BEGIN; LOCK TABLE snowflake_registry IN ACCESS EXCLUSIVE MODE');
my $node_e = registry_node('node_e');
$node_e->start;
$node_e->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$registry->poll_query_until('postgres',
	q{SELECT count(*) > 0 FROM pg_stat_activity WHERE query LIKE '%snowflake_registry_claim%' AND wait_event_type = 'Lock'})
  or die 'the claim never waited';
set_case($node_e, 'snowflake.worker_id = 17', 'snowflake.datacenter_id = 17');
$node_e->reload;
$node_e->poll_query_until('postgres', q{SELECT datacenter_id || '|' || worker_id = '17|17' FROM snowflake_status})
  or die 'reload not applied';
$offset = -s $node_e->logfile;
$lock->query_safe('COMMIT');
$lock->quit;
ok($node_e->wait_for_log(qr/snowflake registrar: (?:node \S+ claimed datacenter_id|snowflake.worker_id is set)/, $offset),
	'the late claim arrived (or was given up for the configured identity)');
is(pair($node_e), '17|17', 'a late claim does not overwrite a worker_id set and reloaded meanwhile');
is(id_pair($node_e), '17|17', '... ids carry the configured identity');
$node_e->stop;

# ---- Widths: a node under other widths is refused by a registry holding
# claims of another layout.
my $node_w = registry_node('node_w');
set_case($node_w, 'snowflake.datacenter_bits = 4', 'snowflake.worker_bits = 6');
$offset = -s $node_w->logfile;
$node_w->start;
$node_w->safe_psql('postgres', 'CREATE EXTENSION snowflake');
ok($node_w->wait_for_log(qr/the registry refused the claim: the snowflake registry holds claims made under other widths/, $offset),
	'a claim under other widths is refused');
($ret, $out, $err) = $node_w->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/DETAIL:  the registry refused the claim: the snowflake registry holds claims made under other widths \(Its claims were made with datacenter_bits = 5 and worker_bits = 5; this node asks with 4 and 6/,
	'nextval says why');
is($registry->safe_psql('postgres', q{SELECT count(*) FROM snowflake_registry WHERE datacenter_bits <> 5 OR worker_bits <> 5}),
	'0', 'no claim under other widths was recorded');
$node_w->stop;

# ---- Stale claims: visible, released only once stale; a node coming back
# after its release gets its pair recorded again if it is free, and moves to a
# free pair if another node took it meanwhile.
$node_b->stop;
my $key_b = read_state($node_b)->{registry_node_key};
($ret, $out, $err) = $registry->psql('postgres', "SELECT snowflake_registry_release('$key_b')");
like($err, qr/the snowflake registry claim of node \Q$key_b\E was renewed less than 10 minutes ago/,
	'release refuses a claim renewed in the last 10 minutes');
$registry->safe_psql('postgres',
	"UPDATE snowflake_registry SET last_seen = now() - interval '1 hour' WHERE node_key = '$key_b'");
is($registry->safe_psql('postgres',
	q{SELECT string_agg(node_key, ',') FROM snowflake_registry WHERE last_seen < now() - interval '10 minutes'}),
	$key_b, 'the stale claim is visible by last_seen');
is($registry->safe_psql('postgres', "SELECT snowflake_registry_release('$key_b')"), 't', 'and released');
$offset = -s $node_b->logfile;
$node_b->start;
is(pair($node_b), $pb, 'node_b comes back with its recorded pair');
ok($node_b->wait_for_log(qr/the registry confirmed the claim of node \Q$key_b\E: datacenter_id/, $offset),
	'... which the registry records again, as it is still free');
is(registry_pair($key_b), $pb, '... under node_b\'s key');
$node_b->stop;
$registry->safe_psql('postgres',
	"UPDATE snowflake_registry SET last_seen = now() - interval '1 hour' WHERE node_key = '$key_b'");
$registry->safe_psql('postgres', "SELECT snowflake_registry_release('$key_b')");
my $node_f = registry_node('node_f');
$node_f->start;
$node_f->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is(claimed($node_f), $pb, "a new node takes the released pair $pb");
$offset = -s $node_b->logfile;
$node_b->start;
ok($node_b->wait_for_log(qr/WARNING:  snowflake registrar: the registry moved node \Q$key_b\E from datacenter_id \d+ worker_id \d+ to datacenter_id \d+ worker_id \d+/, $offset),
	'node_b, released by mistake and back, is moved off the pair another node holds now');
$node_b->poll_query_until('postgres', "SELECT datacenter_id || '|' || worker_id <> '$pb' FROM snowflake_status")
  or die 'node_b never moved';
my $pb2 = pair($node_b);
is(id_pair($node_b), $pb2, "... its ids carry its new pair $pb2");
is(pair($node_f), $pb, '... and the new node keeps its pair');
is($registry->safe_psql('postgres',
	'SELECT count(*) = count(DISTINCT (datacenter_id, worker_id)) FROM snowflake_registry'),
	't', 'no pair is held twice');

$_->stop for $node_a, $node_b, $node_c, $node_f;
$registry->stop;
done_testing();
