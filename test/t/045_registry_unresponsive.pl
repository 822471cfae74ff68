# The registrar never blocks (issue 11, findings 4 and 5): a registry address
# that accepts connections and never answers, or a registry whose claim hangs,
# costs a logged timeout and a retry, never a stuck server -- SIGTERM (a fast
# shutdown, or a kill of the registrar) is answered at once.  And the registry
# may keep the extension in a schema of its own, with objects of the same
# names planted in public: the registrar finds the extension's schema and
# calls only its functions, as a role that may execute them and nothing else.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use IO::Select;
use IO::Socket::INET;
use Time::HiRes qw(time usleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

sub registry_node
{
	my ($name, $conninfo) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', <<"EOC");
shared_preload_libraries = 'snowflake'
snowflake.registry = '$conninfo'
EOC
	return $node;
}

sub pair
{
	my ($node) = @_;
	return $node->safe_psql('postgres',
		'SELECT coalesce(datacenter_id || $$|$$ || worker_id, $$none$$) FROM snowflake_status');
}

# Waits for a registrar process other than $old; returns its pid (0 if none).
sub new_registrar
{
	my ($node, $old) = @_;
	foreach (1 .. 10 * $PostgreSQL::Test::Utils::timeout_default)
	{
		my $pid = worker_pid($node, 'snowflake registrar') // 0;
		return $pid if $pid && $pid != $old;
		usleep(100_000);
	}
	return 0;
}

# ---- A silent registry: a TCP listener that takes connections (the kernel
# completes the handshake) and never says a word.
my $silent = IO::Socket::INET->new(Listen => 16, LocalAddr => '127.0.0.1', LocalPort => 0,
	Proto => 'tcp', ReuseAddr => 1) or die "listener: $!";
my $silent_port = $silent->sockport;
my @held;    # accepted connections, kept open and unanswered

# Waits until the registrar connects to the silent registry; keeps the
# connection open.
sub registrar_connects
{
	my $sel = IO::Select->new($silent);
	my $deadline = time + $PostgreSQL::Test::Utils::timeout_default;
	while (time < $deadline)
	{
		if ($sel->can_read(0.2))
		{
			my $c = $silent->accept;
			push @held, $c if $c;
			return 1 if $c;
		}
	}
	return 0;
}

# No connect_timeout in the connection string, as in the report: libpq's own
# blocking connect would wait for ever.
my $node = registry_node('hung', "host=127.0.0.1 port=$silent_port dbname=postgres");
my $offset = -s $node->logfile;
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');
ok(registrar_connects(), 'the registrar connects to the silent registry');
my ($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/snowflake.worker_id is not set and is waiting for the registry/,
	'no id while the registry does not answer, and the error says why');

# A kill of the registrar while it waits for the silent registry: it exits at
# once and the postmaster starts it again.
my $pid = worker_pid($node, 'snowflake registrar') // 0;
ok($pid > 0, 'the registrar runs');
kill 'TERM', $pid if $pid > 0;    # (never 0: that is the process group)
my $gone;
foreach (1 .. 10 * $PostgreSQL::Test::Utils::timeout_default)
{
	if (!kill 0, $pid) { $gone = 1; last; }
	usleep(100_000);
}
ok($gone, 'SIGTERM ends a registrar waiting for a silent registry');
ok(new_registrar($node, $pid) > 0, '... and the postmaster starts it again');
ok(registrar_connects(), '... which connects to the silent registry again');
ok($node->wait_for_log(qr/snowflake registrar: could not connect to the registry: no answer within 10 s$/m, $offset),
	'without connect_timeout, the registrar gives up after 10 s and logs it');
ok(registrar_connects(), '... and tries again');

# A fast shutdown while the registrar waits on the silent registry returns
# (pg_ctl gives up after PGCTLTIMEOUT; before the fix it did).
my $t0 = time;
my $stopped;
{
	local $ENV{PGCTLTIMEOUT} = 60;
	$stopped = $node->stop('fast', fail_ok => 1);
}
ok($stopped, 'pg_ctl stop -m fast returns while the registrar waits on a silent registry');
note sprintf('fast shutdown took %.2f s', time - $t0);
$_->close for @held;
@held = ();

# The connection string's connect_timeout is the connect deadline.
$node->append_conf('postgresql.conf',
	"snowflake.registry = 'host=127.0.0.1 port=$silent_port dbname=postgres connect_timeout=2'");
$offset = -s $node->logfile;
$node->start;
ok($node->wait_for_log(qr/snowflake registrar: could not connect to the registry: no answer within 2 s \(connect_timeout\)/, $offset),
	'with connect_timeout=2 in the connection string, it gives up after 2 s');
$node->stop;
$_->close for @held;
@held = ();
$silent->close;

# ---- A registry that accepts the claim and then hangs (its table locked):
# the registrar gives up after its query deadline and retries.
my $registry = PostgreSQL::Test::Cluster->new('registry');
$registry->init;
$registry->start;
$registry->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $registry_host = 'host=' . $registry->host . ' port=' . $registry->port;

my $lock = $registry->background_psql('postgres');
$lock->query_safe('BEGIN; LOCK TABLE snowflake_registry IN ACCESS EXCLUSIVE MODE');
my $slow = registry_node('slow', "$registry_host dbname=postgres");
$offset = -s $slow->logfile;
$slow->start;
$slow->safe_psql('postgres', 'CREATE EXTENSION snowflake');
ok($slow->wait_for_log(qr/snowflake registrar: the registry did not answer within 10 s/, $offset),
	'a claim that hangs on the registry is given up after 10 s and logged');
$lock->query_safe('COMMIT');
$lock->quit;
$slow->poll_query_until('postgres', 'SELECT worker_id IS NOT NULL FROM snowflake_status')
  or die 'never claimed';
is(pair($slow), '0|0', 'the next attempt claims once the registry answers');
$slow->stop;

# ---- The extension in schema ids on the registry, hostile objects in
# public, and a registrar role that may only execute the claim functions.
$registry->safe_psql('postgres', <<'EOS');
CREATE DATABASE ids_registry;
EOS
$registry->safe_psql('ids_registry', <<'EOS');
CREATE SCHEMA ids;
CREATE EXTENSION snowflake SCHEMA ids;
CREATE TABLE public.planted_calls (what text);
CREATE FUNCTION public.snowflake_registry_claim(node_key text, datacenter_bits integer,
    worker_bits integer, node_secret text, OUT datacenter_id integer, OUT worker_id integer)
    LANGUAGE sql AS $$ INSERT INTO public.planted_calls VALUES ('claim'); SELECT 31, 31 $$;
CREATE FUNCTION public.snowflake_registry_renew(node_key text, datacenter_bits integer,
    worker_bits integer, held_datacenter_id integer, held_worker_id integer, node_secret text,
    OUT datacenter_id integer, OUT worker_id integer)
    LANGUAGE sql AS $$ INSERT INTO public.planted_calls VALUES ('renew'); SELECT 31, 31 $$;
GRANT ALL ON public.planted_calls TO PUBLIC;
CREATE ROLE snowflake_registrar LOGIN;
GRANT USAGE ON SCHEMA ids TO snowflake_registrar;
GRANT EXECUTE ON FUNCTION ids.snowflake_registry_claim(text, integer, integer, text),
    ids.snowflake_registry_renew(text, integer, integer, integer, integer, text) TO snowflake_registrar;
EOS
is($registry->safe_psql('ids_registry',
	q{SET ROLE snowflake_registrar; SELECT has_table_privilege('ids.snowflake_registry', 'SELECT,INSERT,UPDATE,DELETE')}),
	'f', 'the registrar role has no privilege on the registry table');
my $hosted = registry_node('hosted', "$registry_host dbname=ids_registry user=snowflake_registrar");
$hosted->start;
$hosted->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$hosted->poll_query_until('postgres', 'SELECT worker_id IS NOT NULL FROM snowflake_status')
  or die 'never claimed';
is(pair($hosted), '0|0', 'a node claims from a registry that keeps the extension in schema ids');
is($registry->safe_psql('ids_registry', 'SELECT count(*) FROM ids.snowflake_registry'),
	'1', '... the claim is in ids.snowflake_registry');
# A restart renews (the second function) through the same schema.
$offset = -s $hosted->logfile;
$hosted->restart;
ok($hosted->wait_for_log(qr/the registry confirmed the claim of node/, $offset),
	'after a restart the claim is renewed there');
is(pair($hosted), '0|0', '... with the same pair');
is($registry->safe_psql('ids_registry', 'SELECT count(*) FROM public.planted_calls'),
	'0', 'the functions planted in public were never called');
$hosted->stop;
$registry->stop;
done_testing();
