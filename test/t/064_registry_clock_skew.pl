# Clock skew between the registry and its nodes (issue 43, item 2).
#
# The registry judges a node's confirmation on its own clock; a node dates
# its ids on its own.  Each answer carries the registry's now(), and the
# node keeps its ids inside what the registry promised, as times on the
# registry's clock (src/core/registry_clock.hpp): a confirmation ends no
# later than the registry's now() plus the lease, and a pair given anew is
# used only for ids dated after the registry's now().  Each answer also
# measures the skew, which snowflake_status shows, and a skew proven past
# snowflake.registry_max_skew stops ids until an answer within it.
#
#   the registry, its clock 8 s behind the nodes:
#   node A, configured 0/5: with the default limit (1 s) it issues nothing
#     and says by how much its clock is off; once the registry's clock is
#     right it goes on; with the limit at 30 s it issues ids 8 s ahead;
#   A's standby, promoted while A still runs and A's registrar is stopped
#     (a split brain: A cut off from the registry issues ids until its
#     confirmation ends): every id of the standby is dated after every id
#     of A, none equal (1.6: A's confirmation ran 8 s past the time the
#     registry held the standby back to, and ids were equal);
#   the registry's clock 10 s ahead: node C claims a pair, and its first
#     id is dated after the registry's clock when it gave the pair (1.6:
#     about 10 s before it).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;
use RegistryRace;

my $registry = PostgreSQL::Test::Cluster->new('skew_registry');
$registry->init;
set_clock($registry, '-8');
start_node($registry, faketime => 1);
$registry->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $line = registry_line($registry);

sub skew_of { return $_[0]->safe_psql('postgres', 'SELECT registry_skew_ms FROM snowflake_status'); }

# ---- A: 8 s ahead of the registry, past the default limit.
my $a = new_primary('skew_a');
set_case($a, 'snowflake.datacenter_id = 0', 'snowflake.worker_id = 5', $line,
	'snowflake.registry_wait_timeout = 500');
$a->start;
$a->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$a->poll_query_until('postgres', 'SELECT registry_skew_ms IS NOT NULL FROM snowflake_status')
  or die 'A never measured the skew';
my $skew = skew_of($a);
cmp_ok($skew, '>', 7000, "A measures its clock ahead of the registry's ($skew ms)");
cmp_ok($skew, '<', 9000, '... by about 8 s');
my ($ret, $out, $err) = $a->psql('postgres', 'SELECT snowflake_nextval()');
isnt($ret, 0, 'past snowflake.registry_max_skew (1 s), A issues no id under 0/5');
like($err, qr/wait for this node's clock to agree with the registry's/, 'and says why');
like($err, qr/this node's clock was \d+ ms ahead of the registry's \(measured within \d+ ms\), more than snowflake.registry_max_skew \(1000 ms\)/,
	'with the skew, its error and the limit');
ok($a->log_contains(qr/this node's clock is \d+ ms ahead of the registry's .* no id is issued under the pair/),
	'the registrar logs it');

# ---- The registry's clock is put right: A goes on.
set_clock($registry, '+0');
$a->poll_query_until('postgres', 'SELECT count(*) = 1 FROM (SELECT snowflake_nextval()) s')
  or die 'A never went on';
my $now_skew = skew_of($a);
cmp_ok(abs($now_skew), '<', 1000, "once the clocks agree ($now_skew ms), A issues ids");

# ---- The limit at 30 s, the registry 8 s behind again.
set_clock($registry, '-8');
set_case($a, 'snowflake.datacenter_id = 0', 'snowflake.worker_id = 5', $line,
	'snowflake.registry_wait_timeout = 500', 'snowflake.registry_max_skew = 30s',
	'snowflake.registry_lease = 20');
$a->restart;
$a->poll_query_until('postgres', 'SELECT registry_skew_ms > 7000 FROM snowflake_status')
  or die 'A never measured the skew again';
$a->poll_query_until('postgres', 'SELECT count(*) = 1 FROM (SELECT snowflake_nextval()) s')
  or die 'A issues no ids within the raised limit';
pass('within snowflake.registry_max_skew = 30s, A issues ids 8 s ahead of the registry');

# ---- A split brain: A's standby promoted while A runs.
$a->backup('skew_backup');
my $s = PostgreSQL::Test::Cluster->new('skew_standby');
$s->init_from_backup($a, 'skew_backup', has_streaming => 1);
$s->start;
$a->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM pg_stat_replication WHERE state = 'streaming'")
  or die 'the standby never streamed';
my $ca = start_collect($a, 30, 'a');
$a->poll_query_until('postgres', 'SELECT ids_issued > 1000 FROM snowflake_status')
  or die 'A issues no ids';
# A's registrar stops: A goes on until its last confirmation ends.
my $registrar = worker_pid($a, 'snowflake registrar') or die 'no registrar on A';
kill 'STOP', $registrar;
$s->promote;
$s->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'the standby was not promoted';
my $cs = start_collect($s, 28, 's');
my ($ids_s, $errs_s) = finish_collect($cs);
my ($ids_a, $errs_a) = finish_collect($ca);
my @a5 = ids_of_pair($ids_a, 0, 5);
my @s5 = ids_of_pair($ids_s, 0, 5);
note 'A issued ' . scalar(@a5) . ' ids under 0/5, the promoted standby ' . scalar(@s5)
  . '; its errors: ' . join(' | ', @$errs_s) . '; A\'s: ' . join(' | ', @$errs_a);
cmp_ok(scalar(@s5), '>', 0, 'the promoted standby issues ids under 0/5');
is(equal_ids(\@a5, \@s5), 0, 'no id of the promoted standby equals one of its old primary');
my $last_a = max(map { unix_ms_of($_) } @a5);
my $first_s = min(map { unix_ms_of($_) } @s5);
cmp_ok($first_s, '>', $last_a,
	'every id of the standby is dated after every id of the old primary, the registry 8 s behind ('
	  . ($first_s - $last_a) . ' ms)');
kill 'CONT', $registrar;
$a->stop;
$s->stop;

# ---- The registry 10 s ahead: a claim's ids come after the registry's now().
set_clock($registry, '+10');
my $c = new_node('skew_c');
set_case($c, 'snowflake.worker_id = -1', $line, 'snowflake.registry_max_skew = 20s',
	'snowflake.registry_wait_timeout = 30000');
$c->start;
$c->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$c->poll_query_until('postgres', 'SELECT worker_id IS NOT NULL FROM snowflake_status')
  or die 'C never claimed';
my $first = $c->safe_psql('postgres', 'SELECT snowflake_nextval()');
my ($cdc, $cw) = split /\|/,
  $c->safe_psql('postgres', 'SELECT datacenter_id, worker_id FROM snowflake_status');
my $granted = $registry->safe_psql('postgres',
	"SELECT (extract(epoch FROM claimed_at) * 1000)::bigint FROM snowflake_registry
      WHERE (datacenter_id, worker_id) = ($cdc, $cw)");
my $c_skew = skew_of($c);
cmp_ok($c_skew, '<', -9000, "C measures its clock behind the registry's ($c_skew ms)");
cmp_ok(unix_ms_of($first), '>', $granted,
	'C\'s first id is dated after the registry\'s clock when it gave the pair ('
	  . (unix_ms_of($first) - $granted) . ' ms)');
$c->stop;
$registry->stop;
done_testing();
