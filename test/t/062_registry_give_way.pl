# No give-way without proof (issue 32, items 1 and 2).
#
#   node C: claims a pair X from the registry, issues ids, and stops; the
#     registry is made to see it silent for 11 minutes (its last_seen set
#     back), past the 10-minute give-way;
#   node D: configured with X and the registry, reserves it (C gave way)
#     and issues ids all along, with a 4 s snowflake.registry_lease;
#   C starts again while the registry's table is locked for 3 s: it issues
#     nothing under X until the registry answers, which moves it to
#     another pair.  C and D have no equal id.
#   The registry goes down: C, restarted, waits for it and fails (no id);
#     D, running, stops issuing ids once its lease has run out, and goes on
#     when the registry is back.  With snowflake.issue_without_registry on,
#     C issues ids without it.
#
# Before issue 32, C resumed X from snowflake.state at once, whether the
# registry answered or not, and issued ids equal to D's until its first
# renewal arrived; D issued ids for ever without its registry.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use Time::HiRes qw(time usleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;
use RegistryRace;

my $registry = new_registry('giveway_registry');
my $line = registry_line($registry);

sub reg { return $registry->safe_psql('postgres', $_[0]); }

# ---- C claims X, issues ids, stops.
my $c = new_node('giveway_c');
set_case($c, $line, 'snowflake.worker_id = -1', 'snowflake.registry_wait_timeout = 20000');
$c->start;
$c->safe_psql('postgres', 'CREATE EXTENSION snowflake; CREATE TABLE before_stop (id bigint)');
$c->poll_query_until('postgres', 'SELECT worker_id IS NOT NULL FROM snowflake_status')
  or die 'C never claimed';
my ($xdc, $xw) = split /\|/,
  $c->safe_psql('postgres', 'SELECT datacenter_id, worker_id FROM snowflake_status');
$c->safe_psql('postgres', 'INSERT INTO before_stop SELECT snowflake_generate(10000)');
my $key_c = reg("SELECT node_key FROM snowflake_registry WHERE (datacenter_id, worker_id) = ($xdc, $xw)");
$c->stop;
reg("UPDATE snowflake_registry SET last_seen = last_seen - interval '11 minutes' WHERE node_key = '$key_c'");
note "C held $xdc/$xw; the registry sees it silent for 11 minutes";

# ---- D takes X over and issues ids all along.
my $d = new_node('giveway_d');
set_case($d, 'snowflake.datacenter_id = ' . $xdc, "snowflake.worker_id = $xw", $line,
	'snowflake.registry_lease = 4', 'snowflake.registry_wait_timeout = 500');
$d->start;
$d->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$registry->poll_query_until('postgres',
	"SELECT kind = 'configured' FROM snowflake_registry WHERE (datacenter_id, worker_id) = ($xdc, $xw)")
  or die 'D never reserved X';
pass("D reserved $xdc/$xw: C gave way after 10 silent minutes");
my $cd = start_collect($d, 8, 'd');
$d->poll_query_until('postgres', 'SELECT ids_issued > 1000 FROM snowflake_status')
  or die 'D issues no ids';

# ---- C starts again while the registry is slow.
my $lock = lock_registry($registry);
my $t_lock = time;
$c->start;
my $cc = start_collect($c, 5, 'c');
usleep(3_000_000 - int((time - $t_lock) * 1e6)) if time - $t_lock < 3;
unlock_registry($lock);
my ($ids_c, $errs_c) = finish_collect($cc);
my ($ids_d, $errs_d) = finish_collect($cd);
my @before = split /\n/, $c->safe_psql('postgres', 'SELECT id FROM before_stop');
note 'C issued ' . scalar(@$ids_c) . ' ids after its restart, D ' . scalar(@$ids_d)
  . '; C\'s errors: ' . join(' | ', @$errs_c);
cmp_ok(scalar(@$ids_d), '>', 1000, 'D issued ids all along');
is(scalar(ids_of_pair($ids_c, $xdc, $xw)), 0, "C issued no id under $xdc/$xw after its restart");
cmp_ok(scalar(@$ids_c), '>', 0, 'C issued ids under the pair the registry moved it to');
is(equal_ids($ids_c, $ids_d), 0, 'no id of C equals one of D');
cmp_ok(max(@before), '<', (sort { $a <=> $b } @$ids_d)[0], 'and D\'s ids come after C\'s from before');
my ($ndc, $nw) = split /\|/,
  $c->safe_psql('postgres', 'SELECT datacenter_id, worker_id FROM snowflake_status');
isnt("$ndc/$nw", "$xdc/$xw", "C moved to $ndc/$nw");

# ---- The registry goes down.
$c->stop;
$registry->stop;
my $lease_end = now_unix_ms() + 4000;  # D's lease ends at most 4 s after its last renewal
set_case($c, $line, 'snowflake.worker_id = -1', 'snowflake.registry_wait_timeout = 1500');
$c->start;
my ($ret, $out, $err, $secs) = timed_psql($c, 'SELECT snowflake_nextval()');
isnt($ret, 0, 'C, started without its registry, issues no id');
like($err, qr/snowflake ids under datacenter_id $ndc worker_id $nw wait for the registry to confirm the pair to this node/,
	'it waits for the registry to confirm the pair it resumed');
like($err, qr/Its last failure: could not connect to the registry/, 'and says why it has no answer');
cmp_ok($secs, '>=', 1.4, "after snowflake.registry_wait_timeout ($secs s)");

usleep(1000 * ($lease_end - now_unix_ms() + 200)) if $lease_end + 200 > now_unix_ms();
($ret, $out, $err) = $d->psql('postgres', 'SELECT snowflake_nextval()');
isnt($ret, 0, 'D stops issuing ids once its lease has run out');
like($err, qr/wait for the registry to confirm the pair to this node.*\n.*last confirmed it until/,
	'saying until when the registry confirmed it');
my $last_d = $d->safe_psql('postgres', 'SELECT last_id FROM snowflake_status');
cmp_ok(unix_ms_of($last_d), '<=', $lease_end, 'D\'s last id is dated within its lease');

# ---- The registry is back: D goes on.  The opt-in lets C issue without it.
$registry->start;
$d->poll_query_until('postgres', 'SELECT count(*) = 1 FROM (SELECT snowflake_nextval()) s')
  or die 'D never went on';
pass('D goes on once the registry confirms its pair again');
$registry->stop;
set_case($c, $line, 'snowflake.worker_id = -1', 'snowflake.issue_without_registry = on');
$c->reload;
$c->poll_query_until('postgres', 'SELECT count(*) = 1 FROM (SELECT snowflake_nextval()) s')
  or die 'C never issued with the opt-in';
pass('with snowflake.issue_without_registry on, C issues ids under its pair without the registry');

$_->stop foreach ($c, $d);
done_testing();
