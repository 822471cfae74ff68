# Worker-id registry: nodes with snowflake.registry and no worker_id claim a
# (datacenter_id, worker_id) at start from a registry server, never the same
# pair twice; a restarted node gets its claim back; a node whose registry is
# down errors clearly, keeps retrying, and recovers when the registry returns;
# an exhausted registry says so.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);

my $registry = PostgreSQL::Test::Cluster->new('registry');
$registry->init;
$registry->start;
$registry->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $registry_conn = 'host=' . $registry->host . ' port=' . $registry->port . ' dbname=postgres';

sub new_node
{
	my ($name, @conf) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', join("\n",
		"shared_preload_libraries = 'snowflake'",
		"snowflake.registry = '$registry_conn'", @conf));
	return $node;
}

# Waits until the node's registrar has claimed an identity; returns "dc|worker".
sub claimed
{
	my ($node) = @_;
	$node->poll_query_until('postgres',
		'SELECT worker_id IS NOT NULL FROM snowflake_status')
	  or die $node->name . ' never claimed a worker id';
	return $node->safe_psql('postgres', 'SELECT datacenter_id || $$|$$ || worker_id FROM snowflake_status');
}

# Five nodes started back to back: their registrars claim at the same time.
my @nodes = map { new_node("node$_") } 1 .. 5;
$_->start for @nodes;
$_->safe_psql('postgres', 'CREATE EXTENSION snowflake') for @nodes;
my %ids = map { ($_->name => claimed($_)) } @nodes;
my %seen;
$seen{$_}++ for values %ids;
is(scalar(keys %seen), 5, 'five nodes claimed five distinct (datacenter_id, worker_id) pairs')
  or diag explain \%ids;
is($registry->safe_psql('postgres', 'SELECT count(*) FROM snowflake_registry'),
	'5', 'the registry holds one row per node');

# Ids decode to the claimed identity.
my $first = $nodes[0];
is($first->safe_psql('postgres',
	'SELECT datacenter_id || $$|$$ || worker_id FROM snowflake_parse(snowflake_nextval())'),
	$ids{ $first->name }, 'ids carry the claimed identity');

# A restarted node gets its previous claim back.
$first->restart;
is(claimed($first), $ids{ $first->name }, 'a restarted node gets its old claim back');
is($registry->safe_psql('postgres', 'SELECT count(*) FROM snowflake_registry'),
	'5', 'no new claim for a restart');

# An explicit worker id always wins over the registry.
my $explicit = new_node('explicit', 'snowflake.worker_id = 30', 'snowflake.datacenter_id = 3');
$explicit->start;
$explicit->safe_psql('postgres', 'CREATE EXTENSION snowflake');
is($explicit->safe_psql('postgres', 'SELECT datacenter_id || $$|$$ || worker_id FROM snowflake_status'),
	'3|30', 'an explicit worker id wins; nothing is claimed');
# ... and reserves its pair, so that no claim hands it out.
$registry->poll_query_until('postgres',
	q{SELECT kind = 'configured' FROM snowflake_registry WHERE (datacenter_id, worker_id) = (3, 30)})
  or diag 'the explicit node never reserved 3|30';
is($registry->safe_psql('postgres', q{SELECT count(*) FILTER (WHERE kind = 'claim') || ' ' || count(*) FROM snowflake_registry}),
	'5 6', 'the explicit node claimed nothing, and reserved its configured pair');
$explicit->stop;

# Many concurrent claims straight on the registry: never a pair twice.
$registry->pgbench(
	'--no-vacuum --client=8 --transactions=25',
	0, [qr{processed: 200/200}], [qr{^$}],
	'200 concurrent claims',
	{ 'claim' => q{SELECT * FROM snowflake_registry_claim('bench-' || :client_id || '-' || (random() * 1e9)::bigint::text, 5, 5);} });
is($registry->safe_psql('postgres',
	'SELECT count(*) = count(DISTINCT (datacenter_id, worker_id)) AND count(*) = count(DISTINCT node_key) FROM snowflake_registry'),
	't', 'every claim is a distinct pair for a distinct node');
# Release the bench claims again (once stale: release refuses claims renewed
# in the last 10 minutes).
$registry->safe_psql('postgres',
	q{UPDATE snowflake_registry SET last_seen = now() - interval '1 hour' WHERE node_key LIKE 'bench-%'});
$registry->safe_psql('postgres',
	q{SELECT count(snowflake_registry_release(node_key)) FROM snowflake_registry WHERE node_key LIKE 'bench-%'});
is($registry->safe_psql('postgres', 'SELECT count(*) FROM snowflake_registry'), '6', 'claims can be released');

# Registry down at start: clear error, retries logged, recovery when it returns.
$registry->stop;
my $late = new_node('late');
my $offset = -s $late->logfile;
$late->start;
$late->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my ($ret, $out, $err) = $late->psql('postgres', 'SELECT snowflake_nextval()');
isnt($ret, 0, 'no id while the registry is unreachable');
like($err, qr/snowflake.worker_id is not set and is waiting for the registry/, 'the error says it waits for the registry');
like($err, qr/DETAIL:  could not connect to the registry/, 'and why');
ok($late->wait_for_log(qr/snowflake registrar: could not connect to the registry/, $offset),
	'the registrar logs why it cannot claim');
$registry->start;
my $late_id = claimed($late);
ok(!exists $seen{$late_id}, "the late node claimed a fresh pair ($late_id) once the registry returned");
ok($late->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), 'and issues ids');
$late->stop;

# An exhausted registry says so: a 1-bit worker field under datacenter_bits 0
# has two pairs.  (The 5/5 nodes stop first: they renew their claims, and a
# registry holds claims of one layout only.)
$_->stop for @nodes;
$registry->safe_psql('postgres', 'TRUNCATE snowflake_registry');
my @tiny = map { new_node("tiny$_", 'snowflake.datacenter_bits = 0', 'snowflake.worker_bits = 1') } 1 .. 3;
for my $node (@tiny[0, 1])
{
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');
	claimed($node);
}
$offset = -s $tiny[2]->logfile;
$tiny[2]->start;
$tiny[2]->safe_psql('postgres', 'CREATE EXTENSION snowflake');
ok($tiny[2]->wait_for_log(qr/no free \(datacenter_id, worker_id\) left in the snowflake registry/, $offset),
	'the third node logs that the registry is exhausted');
($ret, $out, $err) = $tiny[2]->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/no free \(datacenter_id, worker_id\) left/, 'and nextval says so');

$_->stop for @tiny;
$registry->stop;
done_testing();
