# The identity history in snowflake_status: identity_since (every id of the
# node's identity carries a time at or after it), retired_identity and
# retired_until (every id of the identity it left carries a time at or
# before it).  Kept through clean and crash restarts in snowflake.state,
# moved by reloads and by a restart under another identity, unknown (NULL)
# where the node cannot know, and carried to a promoted standby by the WAL.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use Compress::Zlib qw(crc32);
use Time::HiRes qw(usleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

# A status column that holds a time, as unix ms ('' for NULL).
sub ms_of
{
	my ($node, $col) = @_;
	return $node->safe_psql('postgres',
		"SELECT (extract(epoch FROM $col) * 1000)::bigint FROM snowflake_status");
}

# $n ids, as a list.
sub ids
{
	my ($node, $n) = @_;
	return split /\n/, $node->safe_psql('postgres', "SELECT snowflake_generate($n)");
}

# Every id made after the statement that starts a node's identity: a burst,
# then more ids across a reservation (> 1 s), so the marks move.
sub ids_over_a_second
{
	my ($node) = @_;
	my @ids = ids($node, 1000);
	usleep(1_200_000);
	push @ids, ids($node, 1000);
	return @ids;
}

sub worker_of { return decode_id($_[0])->{worker_id}; }

my $node = new_node('history');
my $before_start = now_unix_ms();
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');

# ---- A fresh node: its identity starts with the node.
my $since25 = ms_of($node, 'identity_since');
ok($since25 >= $before_start - 1000 && $since25 <= now_unix_ms(),
	"a fresh node's identity_since is its start ($since25)");
my @ids25 = ids_over_a_second($node);
cmp_ok(min(map { unix_ms_of($_) } @ids25), '>=', $since25, 'every id carries a time at or after it');
is($node->safe_psql('postgres', 'SELECT retired_identity IS NULL AND retired_until IS NULL FROM snowflake_status'),
	't', 'no identity was left');
my $st = read_state($node);
is($st->{header}, 'snowflake-state 3', 'the state file is version 3');
is($st->{identity_since_unix_ms}, $since25, 'it records identity_since');
is($st->{identities_complete}, '1', 'and that the node used no other identity');
is($st->{retired_worker_id}, '-1', 'and none retired');

# ---- Durable: a clean restart and a crash restart keep it.
$node->restart;
is(ms_of($node, 'identity_since'), $since25, 'a clean restart keeps identity_since');
push @ids25, ids($node, 100);
crash($node);
$node->start;
is(ms_of($node, 'identity_since'), $since25, 'a crash restart keeps identity_since');
push @ids25, ids($node, 100);

# ---- A reload to worker 26 retires 25.
my $before_reload = now_unix_ms();
reload_case($node, 'SELECT worker_id = 26 FROM snowflake_status', 'snowflake.worker_id = 26');
my $since26 = ms_of($node, 'identity_since');
my $until25 = ms_of($node, 'retired_until');
is($node->safe_psql('postgres', 'SELECT retired_identity FROM snowflake_status'), '17/25',
	'the reload retires 17/25');
cmp_ok(max(map { unix_ms_of($_) } @ids25), '<=', $until25,
	'every id of worker 25 carries a time at or before retired_until');
# After the crash restart the word may run ahead of the clock (it starts at
# the mark): worker 26 starts at the reload or after the last id of 25.
cmp_ok($since26, '>=', $before_reload, "worker 26 starts at the reload or later ($since26)");
my @ids26 = ids_over_a_second($node);
ok(!grep({ worker_of($_) != 26 } @ids26), 'ids carry worker 26 now');
cmp_ok(min(map { unix_ms_of($_) } @ids26), '>=', $since26, 'and times at or after its identity_since');
$st = read_state($node);
is($st->{worker_id}, '26', 'the state file records worker 26 (written before its first id)');
is($st->{identity_since_unix_ms}, $since26, 'with its identity_since');
is("$st->{retired_datacenter_id}/$st->{retired_worker_id} $st->{retired_until_unix_ms}",
	"17/25 $until25", 'and 17/25 retired until retired_until');

# ---- Back to 25: its ids from before are still there, so its since stays.
reload_case($node, 'SELECT worker_id = 25 FROM snowflake_status', 'snowflake.worker_id = 25');
is(ms_of($node, 'identity_since'), $since25, 'back on worker 25, identity_since is its first one');
is($node->safe_psql('postgres', 'SELECT retired_identity FROM snowflake_status'), '17/26',
	'and 17/26 is the one retired');
cmp_ok(max(map { unix_ms_of($_) } @ids26), '<=', ms_of($node, 'retired_until'),
	'until a time at or after every id of worker 26');
push @ids25, ids($node, 100);

# ---- A restart under worker 27: a third identity.
$node->stop;
my $stopped = now_unix_ms();
my $mark_at_stop = read_state($node)->{mark_unix_ms};
set_case($node, 'snowflake.worker_id = 27');
$node->start;
my $since27 = ms_of($node, 'identity_since');
ok($since27 >= $stopped && $since27 <= now_unix_ms(), "worker 27 starts with the server ($since27)");
is($node->safe_psql('postgres', 'SELECT retired_identity FROM snowflake_status'), '17/25',
	'the identity the state file recorded is the one retired');
is(ms_of($node, 'retired_until'), $mark_at_stop, 'until the mark the clean stop left');
cmp_ok(max(map { unix_ms_of($_) } @ids25), '<=', $mark_at_stop, 'which covers every id of worker 25');
my @ids27 = ids($node, 100);
cmp_ok(min(map { unix_ms_of($_) } @ids27), '>=', $since27, 'ids of 27 carry later times');

# The node now remembers 27 and 25 only: worker 26, used before, has an
# unknown since.
reload_case($node, 'SELECT worker_id = 26 FROM snowflake_status', 'snowflake.worker_id = 26');
is($node->safe_psql('postgres', 'SELECT identity_since IS NULL FROM snowflake_status'), 't',
	'an identity used before what the node remembers has no identity_since');
is(read_state($node)->{identities_complete}, '0', 'the state file says the history is incomplete');
ids($node, 10);
$node->restart;
is($node->safe_psql('postgres', 'SELECT identity_since IS NULL FROM snowflake_status'), 't',
	'also after a restart');
$node->stop;

# ---- A state file written before 1.5, with ids: nothing is known.
my $old = PostgreSQL::Test::Cluster->new('history_old');
$old->init;
$old->append_conf('postgresql.conf', "shared_preload_libraries = 'snowflake'\nsnowflake.worker_id = 3\n");
my $body = "snowflake-state 1\nmark_unix_ms " . (now_unix_ms() - 60_000) .
  "\nepoch_ms $SnowflakeTest::EPOCH_MS\ndatacenter_bits 5\nworker_bits 5\nsequence_bits 12\n" .
  "datacenter_id 0\nworker_id 3\n";
open my $fh, '>', state_path($old) or die $!;
print $fh $body . sprintf("crc32 %08x\n", crc32($body));
close $fh;
chmod 0600, state_path($old);
$old->start;
$old->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is($old->safe_psql('postgres', 'SELECT identity_since IS NULL, retired_identity IS NULL FROM snowflake_status'),
	't|t', 'a node upgraded from a version 1 state file with ids has no identity_since');
ids($old, 10);
$st = read_state($old);
is("$st->{header} $st->{identity_since_unix_ms} $st->{identities_complete}", 'snowflake-state 3 -1 0',
	'its state file becomes version 3, history unknown');
$old->stop;

# ---- A promoted standby carries on its primary's history (from the WAL).
my $primary = new_primary('history_primary', 'snowflake.worker_id = 7');
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$primary->backup('base');
my @standbys;
foreach my $case ([ 'history_same', 7 ], [ 'history_other', 8 ])
{
	my $s = PostgreSQL::Test::Cluster->new($case->[0]);
	$s->init_from_backup($primary, 'base', has_streaming => 1);
	set_case($s, "snowflake.worker_id = $case->[1]");
	$s->start;
	push @standbys, $s;
}
my $since7 = ms_of($primary, 'identity_since');
my @ids7 = ids_over_a_second($primary);
$primary->wait_for_catchup($_) foreach @standbys;
my ($same, $other) = @standbys;
$primary->stop;
foreach my $s (@standbys)
{
	$s->promote;
	$s->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'not promoted';
}
is(ms_of($same, 'identity_since'), $since7,
	"a promoted standby with its primary's identity has its primary's identity_since");
my $since8 = ms_of($other, 'identity_since');
cmp_ok($since8, '>', max(map { unix_ms_of($_) } @ids7),
	"one with another identity starts it after its primary's last id ($since8)");
cmp_ok(min(map { unix_ms_of($_) } ids($other, 100)), '>=', $since8, 'and its ids come after that');
is($other->safe_psql('postgres', 'SELECT retired_identity FROM snowflake_status'), '0/7',
	'and the primary\'s identity is the one it retired');
cmp_ok(max(map { unix_ms_of($_) } @ids7), '<=', ms_of($other, 'retired_until'),
	'until a time at or after every id the primary issued');
is(read_state($same)->{identity_since_unix_ms}, $since7, 'the promoted standby\'s state file records it');
$_->stop foreach @standbys;

done_testing();
