# An identity handed over by the book (SQL edition, plain script): database
# one moves from worker 2 to worker 3 while a statement that makes ids runs
# in it (in a SERIALIZABLE transaction whose snapshot is older than the
# change); once that commits, database two takes worker 2 and makes ids at
# the same time.  The running statement takes the new identity within a
# millisecond of the commit: no id is made by both.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use lib "$FindBin::RealBin/../t";
use IPC::Run;
use Time::HiRes qw(usleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest qw(decode_id start_node);
use SqlEditionTest;

my $node = plain_node('handover');
start_node($node);
add_role($node, 'owner1');
for my $db ('one', 'two')
{
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, 'CREATE SCHEMA ids AUTHORIZATION owner1');
	install_plain($node, $db, 'owner1', 'ids');
}
safe_psql_as($node, 'one', 'owner1', 'SELECT ids.snowflake_configure(worker_id => 2)');

# About one id a millisecond for 2 seconds, in one statement, in a
# transaction whose snapshot was taken before the change.
my $sql = "BEGIN ISOLATION LEVEL SERIALIZABLE; SELECT count(*) FROM ids.snowflake_sql_config; "
  . "SELECT ids.snowflake_nextval() FROM (SELECT pg_sleep(0.001) FROM generate_series(1, 1500)) s; COMMIT;";
my ($out1, $err1) = ('', '');
my $h = IPC::Run::start(
	[ $node->installed_command('psql'), '-X', '-A', '-t', '-q', '-v', 'ON_ERROR_STOP=1',
	  '-d', $node->connstr('one'), '-U', 'owner1', '-c', $sql ],
	'>', \$out1, '2>', \$err1);
usleep(700_000);
# The move, and the time of its commit (the clock of this server).
my $committed = safe_psql_as($node, 'one', 'owner1',
	"SELECT ids.snowflake_configure(worker_id => 3); SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint");
($committed) = $committed =~ /(\d+)\s*$/;
# The handover rule (docs/managed.md): database two takes worker 2 once
# database one's retired_until has passed.
my ($retired, $until) = split /\|/, safe_psql_as($node, 'one', 'owner1',
	"SELECT retired_identity, (extract(epoch FROM retired_until) * 1000)::bigint FROM ids.snowflake_status");
is($retired, '0/2', 'database one shows the identity it left');
cmp_ok($until, '>=', $committed - 1000, '... and until when its ids carry it');
$node->poll_query_until('one', "SELECT clock_timestamp() > retired_until FROM ids.snowflake_status")
  or die 'retired_until never passed';
safe_psql_as($node, 'two', 'owner1', 'SELECT ids.snowflake_configure(worker_id => 2)');
cmp_ok(safe_psql_as($node, 'two', 'owner1',
		'SELECT (extract(epoch FROM identity_since) * 1000)::bigint FROM ids.snowflake_status'),
	'>', $until, 'database two\'s identity_since is after it');
my @two = split /\n/, safe_psql_as($node, 'two', 'owner1',
	'SELECT ids.snowflake_nextval() FROM (SELECT pg_sleep(0.001) FROM generate_series(1, 1500)) s');
$h->finish;
is($?, 0, 'the statement in database one ran through the change') or diag $err1;
my @one = grep { /^\d+$/ } split /\n/, $out1;
my %by = (2 => 0, 3 => 0);
$by{ decode_id($_)->{worker_id} }++ for @one;
cmp_ok($by{2}, '>', 100, "database one made $by{2} ids as worker 2 before the change");
cmp_ok($by{3}, '>', 100, "... and $by{3} as worker 3 after it, in the same statement");
my @late = grep { my $p = decode_id($_); $p->{worker_id} == 2 && $p->{unix_ms} > $committed } @one;
is(scalar(@late), 0, '... none as worker 2 from the millisecond after the commit on');
is(scalar(grep { my $p = decode_id($_); $p->{worker_id} == 2 && $p->{unix_ms} > $until } @one), 0,
	'... none as worker 2 after its retired_until');
my %seen = map { $_ => 1 } @one;
is(scalar(grep { $seen{$_} } @two), 0,
	'database two, worker 2 once retired_until had passed, made none of database one\'s ids');

$node->stop;
done_testing();
