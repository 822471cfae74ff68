# The registry's rows of a node are its own (issue 32, item 6): every call
# the registrar makes in the node's name carries the node's secret
# (snowflake.node_secret in its data directory), and the registry keeps its
# SHA-256.  Whoever has only the registrar login knows every node key (they
# are no secret) but not the secrets, so cannot retire a live node's pair,
# renew it or take it over as a "later timeline".  A standby made with
# pg_basebackup inherits the secret, so once promoted it takes its old
# primary's configured pair over.
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
                                                     integer, timestamptz, text),
                          snowflake_registry_retire(text, integer, integer, timestamptz),
                          snowflake_registry_reserve(text, integer, integer, integer, integer,
                                                     integer, timestamptz)
      TO snowflake_registrar;
EOS
my $line = registry_line($registry);
$line =~ s/'$/ user=snowflake_registrar'/;

my $a = new_node('secret_a');
$a->append_conf('postgresql.conf', "wal_level = replica\nmax_wal_senders = 4");
set_case($a, 'snowflake.datacenter_id = 0', 'snowflake.worker_id = 5', $line);
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
	  "SELECT * FROM snowflake_registry_reserve('$key_a', 5, 5, 0, 9, 1, now() - interval '1 hour', '$forged')",
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
	"SELECT refused FROM snowflake_registry_reserve('$later', 5, 5, 0, 5, 99, now(), '$forged')");
is($ret, 0, 'a takeover as a promoted standby of A answers');
like($refused, qr/holds this pair/, 'and refuses the pair: A holds it');
is($registry->safe_psql('postgres',
		"SELECT node_key FROM snowflake_registry WHERE (datacenter_id, worker_id) = (0, 5)"),
	$key_a, 'A still holds 0/5 on the registry');
is($registry->safe_psql('postgres', 'SELECT count(*) FROM snowflake_registry_retired'),
	'0', 'and nothing is recorded as retired');
cmp_ok($a->safe_psql('postgres', 'SELECT count(*) FROM snowflake_generate(1000)'), '==', 1000,
	'A goes on issuing ids under 0/5');

# ---- A standby inherits the secret; promoted, it takes 0/5 over.
$a->backup('secret_backup');
my $s = PostgreSQL::Test::Cluster->new('secret_standby');
$s->init_from_backup($a, 'secret_backup', has_streaming => 1);
$s->start;
is(slurp_file($s->data_dir . '/snowflake.node_secret'), "$secret\n",
	'a standby made with pg_basebackup has its primary\'s secret');
$a->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM pg_stat_replication WHERE state = 'streaming'")
  or die 'the standby never streamed';
$a->stop;
$s->promote;
$registry->poll_query_until('postgres',
	"SELECT node_key <> '$key_a' AND timeline = 2 FROM snowflake_registry
      WHERE (datacenter_id, worker_id) = (0, 5)")
  or die 'the promoted standby never took 0/5 over';
pass('the promoted standby took 0/5 over with the secret it inherited');
$s->poll_query_until('postgres', 'SELECT count(*) = 10 FROM snowflake_generate(10)')
  or die 'the promoted standby issues no id';
pass('and issues ids under it');

$s->stop;
$registry->stop;
done_testing();
