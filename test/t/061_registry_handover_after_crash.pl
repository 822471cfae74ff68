# Handover after a crash (issue 32, item 1): a configured node reloaded
# onto a pair that another node retired until a time still to come issues
# no id dated at or before that time, even when the registry is slow.
#
#   node P: configured with 0/9 and the registry, its clock 20 s ahead
#     while it issues ids (within its snowflake.registry_max_skew);
#     killed with kill -9, restarted with its clock
#     right (the ids it issues then are borrowed 20 s ahead of it), then
#     reloaded to 0/10: it retires 0/9 until about 20 s from now;
#   node Q: configured with 0/8, reloaded onto 0/9 while the registry's
#     table is locked for 3 s: it waits for the registry's answer, then
#     holds its ids back until retired_until has passed.
#
# Before issue 32, Q issued ids under 0/9 at once after the reload, dated
# before retired_until, until the registry's answer arrived.
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

my $registry = new_registry('handover2_registry');
my $line = registry_line($registry);

my $issue = 'WITH i AS (INSERT INTO ids SELECT snowflake_generate(1000) RETURNING 1)
             SELECT count(*) = 1000 FROM i';

# Node Q first, so that it is running by the time P has left 0/9.
my $q = new_node('handover2_q');
set_case($q, 'snowflake.datacenter_id = 0', 'snowflake.worker_id = 8', $line);
$q->start;
$q->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$registry->poll_query_until('postgres',
	"SELECT kind = 'configured' FROM snowflake_registry WHERE (datacenter_id, worker_id) = (0, 8)")
  or die 'Q never reserved 0/8';

# ---- Node P: ids under 0/9 dated 20 s ahead, a crash, a reload to 0/10.
my $p = new_node('handover2_p');
$p->append_conf('postgresql.conf', 'restart_after_crash = off');
set_case($p, 'snowflake.datacenter_id = 0', 'snowflake.worker_id = 9', $line,
	'snowflake.max_clock_backward_ms = 30000', "snowflake.registry_max_skew = '60s'");
set_clock($p, '+20');
start_node($p, faketime => 1);
$p->safe_psql('postgres', 'CREATE EXTENSION snowflake; CREATE TABLE ids (id bigint)');
$p->poll_query_until('postgres', $issue)
  or die 'P issues no id';
$p->safe_psql('postgres', 'INSERT INTO ids SELECT snowflake_generate(20000)');
crash($p);
set_clock($p, '+0');
start_node($p, faketime => 1);
$p->poll_query_until('postgres', $issue)
  or die 'P issues no id after the crash';
set_case($p, 'snowflake.datacenter_id = 0', 'snowflake.worker_id = 10', $line,
	'snowflake.max_clock_backward_ms = 30000', "snowflake.registry_max_skew = '60s'");
$p->reload;
$p->poll_query_until('postgres', 'SELECT worker_id = 10 FROM snowflake_status')
  or die 'the reload did not take effect';
my $until = $p->safe_psql('postgres',
	'SELECT (extract(epoch FROM retired_until) * 1000)::bigint FROM snowflake_status');
my @ids_p = ids_of_pair([ split /\n/, $p->safe_psql('postgres', 'SELECT id FROM ids') ], 0, 9);
note 'retired_until is ' . ($until - now_unix_ms()) . ' ms ahead of the clock';
cmp_ok($until - now_unix_ms(), '>', 8000, 'P retired 0/9 until more than 8 s from now');
$registry->poll_query_until('postgres',
	"SELECT (extract(epoch FROM retired_until) * 1000)::bigint = $until
     FROM snowflake_registry_retired WHERE (datacenter_id, worker_id) = (0, 9)")
  or die 'the registry never learned that P left 0/9';

# ---- Node Q moves onto 0/9 while the registry is slow.
my $lock = lock_registry($registry);
my $t_lock = time;
set_case($q, 'snowflake.datacenter_id = 0', 'snowflake.worker_id = 9', $line);
$q->reload;
$q->poll_query_until('postgres', 'SELECT worker_id = 9 FROM snowflake_status')
  or die 'the reload did not take effect';
my $cq = start_collect($q, 4, 'q');
usleep(3_000_000 - int((time - $t_lock) * 1e6)) if time - $t_lock < 3;
unlock_registry($lock);
my ($ids_q, $errs_q) = finish_collect($cq);
note 'Q issued ' . scalar(@$ids_q) . ' ids; its errors: ' . join(' | ', @$errs_q);
my $early = grep { unix_ms_of($_) <= $until } ids_of_pair($ids_q, 0, 9);
is($early, 0, 'Q issued no id under 0/9 dated at or before retired_until');
is(equal_ids(\@ids_p, $ids_q), 0, 'no id of Q equals one of P');
ok((grep { /snowflake ids under datacenter_id 0 worker_id 9 are held back until/ } @$errs_q),
	'once the registry answered, Q\'s ids were held back with a message');

# ---- Once its clock is past retired_until, Q issues ids under 0/9.
usleep(1000 * ($until - now_unix_ms() + 50)) if $until > now_unix_ms() - 50;
$q->poll_query_until('postgres', 'SELECT count(*) = 1 FROM (SELECT snowflake_nextval()) s')
  or die 'Q never issued under 0/9';
my @later = split /\n/, $q->safe_psql('postgres', 'SELECT snowflake_generate(1000)');
cmp_ok(min(map { unix_ms_of($_) } @later), '>', $until, 'then Q issues ids dated after it');
cmp_ok(min(@later), '>', max(@ids_p), 'above every id P issued under 0/9');

$_->stop foreach ($p, $q, $registry);
done_testing();
