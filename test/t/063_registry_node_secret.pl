# The registry's rows of a node are its own (issue 32, item 6): every call
# the registrar makes in the node's name carries the node's secret
# (snowflake.node_secret in its data directory), and the registry keeps its
# SHA-256.  Whoever has only the registrar login knows every node key (they
# are no secret) but not the secrets, so cannot retire a live node's pair,
# renew it or take it over as a "later timeline".  A standby made with
# pg_basebackup inherits the secret, so once promoted it takes its old
# primary's configured pair over -- and, as the old primary may still run
# (a split brain), issues ids under it only after the old primary's last
# confirmation has ended: no id of the two is equal.
#
# Before issue 32, the registrar login could retire A's pair in its name,
# and a promoted standby issued ids under the pair at once while its old
# primary went on until its next reservation.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;
use RegistryRace;

my $registry = new_registry('secret_registry');
$registry->safe_psql('postgres', <<'EOS');
CREATE ROLE snowflake_registrar LOGIN;
GRANT EXECUTE ON FUNCTION snowflake_registry_claim(text, integer, integer, text),
                          snowflake_registry_renew(text, integer, integer, integer, integer, text),
                          snowflake_registry_retire(text, integer, integer, timestamptz, text),
                          snowflake_registry_reserve(text, integer, integer, integer, integer,
                                                     integer, timestamptz, text, interval),
                          snowflake_registry_retire(text, integer, integer, timestamptz),
                          snowflake_registry_reserve(text, integer, integer, integer, integer,
                                                     integer, timestamptz)
      TO snowflake_registrar;
EOS
my $line = registry_line($registry);
$line =~ s/'$/ user=snowflake_registrar'/;

my $a = new_node('secret_a');
$a->append_conf('postgresql.conf', "wal_level = replica\nmax_wal_senders = 4");
# A short lease: the promoted standby below waits for it to end.
set_case($a, 'snowflake.datacenter_id = 0', 'snowflake.worker_id = 5', $line,
	'snowflake.registry_lease = 4');
$a->start;
$a->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$registry->poll_query_until('postgres',
	"SELECT secret_hash IS NOT NULL FROM snowflake_registry WHERE (datacenter_id, worker_id) = (0, 5)")
  or die 'A never reserved 0/5';
my $key_a = $registry->safe_psql('postgres',
	'SELECT node_key FROM snowflake_registry WHERE (datacenter_id, worker_id) = (0, 5)');

# ---- The secret: a file of A's own, and only its hash on the registry.
my $file = $a->data_dir . '/snowflake.node_secret';
ok(-f $file, 'A has made snowflake.node_secret in its data directory');
is(sprintf('%04o', (stat $file)[2] & 07777), '0600', 'readable by the server\'s OS user only');
my $secret = slurp_file($file);
like($secret, qr/^[0-9a-f]{64}\n\z/, '64 hex digits and a line break');
chomp $secret;
is($registry->safe_psql('postgres',
		"SELECT secret_hash = sha256(convert_to('$secret', 'UTF8')) FROM snowflake_registry
          WHERE node_key = '$key_a'"),
	't', "the registry keeps the SHA-256 of A's secret on its row");

# ---- With the registrar login only: every call in A's name is refused.
my $forged = 'f' x 64;
sub as_registrar
{
	my ($sql) = @_;
	my ($ret, $out, $err) =
	  $registry->psql('postgres', $sql, extra_params => [ '-U', 'snowflake_registrar' ]);
	return ($ret, $err, $out);
}
my %attempts = (
	'a retirement that frees its pair now' =>
	  "SELECT snowflake_registry_retire('$key_a', 0, 5, now() - interval '1 hour', '$forged')",
	'a retirement through the 1.5 signature, with no secret' =>
	  "SELECT snowflake_registry_retire('$key_a', 0, 5, now() - interval '1 hour')",
	'a reservation of another pair in its name (which would retire 0/5)' =>
	  "SELECT * FROM snowflake_registry_reserve('$key_a', 5, 5, 0, 9, 1, now() - interval '1 hour', '$forged', interval '4 s')",
	'a renewal in its name' =>
	  "SELECT * FROM snowflake_registry_renew('$key_a', 5, 5, 0, 5, '$forged')");
for my $what (sort keys %attempts)
{
	my ($ret, $err) = as_registrar($attempts{$what});
	isnt($ret, 0, "refused: $what");
	like($err, qr/was recorded with another node secret/, "... saying the secret is not the row's");
}
# A "later timeline" of A's cluster (its system identifier is part of the
# key): refused without A's secret.
(my $later = $key_a) =~ s/:(\d+)$/':' . ($1 + 1)/e;
my ($ret, $err, $refused) = as_registrar(
	"SELECT refused FROM snowflake_registry_reserve('$later', 5, 5, 0, 5, 99, now(), '$forged', interval '4 s')");
is($ret, 0, 'a takeover as a promoted standby of A answers');
like($refused, qr/holds this pair/, 'and refuses the pair: A holds it');
is($registry->safe_psql('postgres',
		"SELECT node_key FROM snowflake_registry WHERE (datacenter_id, worker_id) = (0, 5)"),
	$key_a, 'A still holds 0/5 on the registry');
is($registry->safe_psql('postgres', 'SELECT count(*) FROM snowflake_registry_retired'),
	'0', 'and nothing is recorded as retired');
cmp_ok($a->safe_psql('postgres', 'SELECT count(*) FROM snowflake_generate(1000)'), '==', 1000,
	'A goes on issuing ids under 0/5');

# ---- A standby inherits the secret; promoted while A still runs, it takes
# 0/5 over once A's last confirmation has ended.
$a->backup('secret_backup');
my $s = PostgreSQL::Test::Cluster->new('secret_standby');
$s->init_from_backup($a, 'secret_backup', has_streaming => 1);
$s->start;
is(slurp_file($s->data_dir . '/snowflake.node_secret'), "$secret\n",
	'a standby made with pg_basebackup has its primary\'s secret');
$a->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM pg_stat_replication WHERE state = 'streaming'")
  or die 'the standby never streamed';
my $ca = start_collect($a, 14, 'a');
$a->poll_query_until('postgres', 'SELECT ids_issued > 1000 FROM snowflake_status')
  or die 'A issues no ids';
$s->promote;
$s->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'the standby was not promoted';
my $cs = start_collect($s, 12, 's');
$registry->poll_query_until('postgres',
	"SELECT node_key <> '$key_a' AND timeline = 2 FROM snowflake_registry
      WHERE (datacenter_id, worker_id) = (0, 5)")
  or die 'the promoted standby never took 0/5 over';
pass('the promoted standby took 0/5 over with the secret it inherited');
my ($ids_s, $errs_s) = finish_collect($cs);
my ($ids_a, $errs_a) = finish_collect($ca);
my @a5 = ids_of_pair($ids_a, 0, 5);
my @s5 = ids_of_pair($ids_s, 0, 5);
note 'A issued ' . scalar(@a5) . ' ids under 0/5, the promoted standby ' . scalar(@s5)
  . '; its errors: ' . join(' | ', @$errs_s);
cmp_ok(scalar(@s5), '>', 0, 'the promoted standby issues ids under 0/5');
is(equal_ids(\@a5, \@s5), 0, 'no id of the promoted standby equals one of its old primary');
my $last_a = max(map { unix_ms_of($_) } @a5);
my $first_s = min(map { unix_ms_of($_) } @s5);
cmp_ok($first_s, '>', $last_a,
	'every id of the standby is dated after every id of the old primary (' . ($first_s - $last_a) . ' ms)');
note "the old primary's errors: " . join(' | ', @$errs_a);
my ($ret_a, $out_a, $err_a) = $a->psql('postgres', 'SELECT snowflake_nextval()');
isnt($ret_a, 0, 'the old primary issues no more ids under 0/5');
like($err_a, qr/later timeline|old primary/, '... for the registry told it a promoted standby took it') or diag($err_a);

$a->stop;
$s->stop;
$registry->stop;
done_testing();
