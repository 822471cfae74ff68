# Moving a node between the editions, its table moved with pg_dump, in both
# directions, with the documented step (docs/managed.md): on the arriving
# node, snowflake_start_above(the departing node's
# snowflake_max_id(durable_mark)).  The departing node has borrowed ahead of
# its clock just before the move (its clock stepped back 5 s), and both
# servers' clocks are 5 s behind: without the step the arriving node would
# make ids below the departing node's last ones.  The table's DEFAULT
# snowflake_nextval() binds to the arriving edition's function, unchanged;
# every id made after the move is above every id made before it, also after
# a kill -9 of the arriving server right after the step.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use lib "$FindBin::RealBin/../t";
use IPC::Run;
use Time::HiRes qw(time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest qw(crash decode_id set_clock start_node max min);
use SqlEditionTest;

my $sqlsrv = plain_node('sqlsrv');
start_node($sqlsrv, faketime => 1);
add_role($sqlsrv, 'app');
my $csrv = c_node('csrv', 'snowflake.worker_id = 11', 'snowflake.datacenter_id = 1');
start_node($csrv, faketime => 1);

# The documented step, run as the page shows it: a shell line with OLD and
# NEW the departing and arriving databases.
my $step = doc_block('move-step.sh');
like($step, qr/snowflake_start_above/, 'docs/managed.md shows the step');
sub move_step
{
	my ($old, $new) = @_;
	my ($o, $e);
	local $ENV{OLD} = $old;
	local $ENV{NEW} = $new;
	# The page's psql is the one on PATH.
	IPC::Run::run([ 'bash', '-e', '-c', $step ], '>', \$o, '2>', \$e) or die "the step failed: $e";
	return $o;
}

sub ids_of
{
	my ($node, $db) = @_;
	return split /\n/, $node->safe_psql($db, 'SELECT id FROM orders ORDER BY id');
}

sub dump_orders
{
	my ($from, $from_db, $to, $to_db) = @_;
	my $f = $from->basedir . '/orders.sql';
	$from->command_ok([ $from->installed_command('pg_dump'), '--no-owner', '-t', 'orders', '-f', $f, '-d',
			$from->connstr($from_db) ], 'pg_dump of the table');
	$to->command_ok([ $to->installed_command('psql'), '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d',
			$to->connstr($to_db), '-f', $f ], '... restored on the arriving server');
}

# ---- from the SQL edition to the C extension ------------------------------
# (The arriving database first: between the step back and the check below,
# only what the check needs, so that a loaded machine still shows it.)
$csrv->safe_psql('postgres', 'CREATE DATABASE shop');
$csrv->safe_psql('shop', 'CREATE EXTENSION snowflake');
$sqlsrv->safe_psql('postgres', 'CREATE DATABASE shop OWNER app');
install_plain($sqlsrv, 'shop', 'app', 'public');
my $t_step = time;
safe_psql_as($sqlsrv, 'shop', 'app', <<'EOS');
SELECT snowflake_configure(worker_id => 11, datacenter_id => 1);
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), item text);
INSERT INTO orders (item) SELECT 'before' FROM generate_series(1, 1000);
EOS
set_clock($sqlsrv, '-5');
safe_psql_as($sqlsrv, 'shop', 'app', "INSERT INTO orders (item) SELECT 'borrowed' FROM generate_series(1, 3000)");
my $ahead = $sqlsrv->safe_psql('shop', 'SELECT borrowed_ahead_ms FROM snowflake_status');
borrowed_after_step($ahead, 5000, $t_step, 'the SQL edition borrowed ahead of its clock just before the move');
my @before = ids_of($sqlsrv, 'shop');
my $h = $sqlsrv->safe_psql('shop', 'SELECT snowflake_max_id(durable_mark) FROM snowflake_status');
cmp_ok($h, '>=', max(@before), 'snowflake_max_id(durable_mark) covers every id it made');

set_clock($csrv, '-5');
# The C node's clock, 5 s behind, is below the borrowed ids for as long as
# less than 5 s have passed since the ids before the step (on a machine so
# loaded that more have, the hazard is over by itself, as in
# borrowed_after_step).
my $c_max = $csrv->safe_psql('shop', 'SELECT snowflake_max_id(clock_timestamp())');
my $since = int(1000 * (time - $t_step));
ok($c_max < max(@before) || $since >= 5000 - 50,
	"without the step the C node (its clock 5 s behind too) would make ids below the last ones ($since ms since the ids before the step began)");
dump_orders($sqlsrv, 'shop', $csrv, 'shop');
move_step($sqlsrv->connstr('shop'), $csrv->connstr('shop'));
crash($csrv);
start_node($csrv, faketime => 1);
$csrv->safe_psql('shop', "INSERT INTO orders (item) SELECT 'after' FROM generate_series(1, 2000)");
my @after = split /\n/, $csrv->safe_psql('shop', "SELECT id FROM orders WHERE item = 'after' ORDER BY id");
is(scalar(@after), 2000, 'the moved table takes ids from the C extension through its unchanged DEFAULT');
cmp_ok(min(@after), '>', $h, 'after the step (and a kill -9), every id is above the departing node\'s mark');
cmp_ok(min(@after), '>', max(@before), '... so above every id made before the move');
is(decode_id($after[0])->{worker_id}, 11, '... with the node\'s identity');

# The C extension's snowflake_start_above: superusers only (even with EXECUTE
# granted), and never below 0.
$csrv->safe_psql('shop', 'CREATE ROLE mover LOGIN');
my ($ret, $out, $err) = $csrv->psql('shop', 'SELECT snowflake_start_above(1)', extra_params => [ '-U', 'mover' ]);
like($err, qr/permission denied for function snowflake_start_above/, 'C: snowflake_start_above is not granted to PUBLIC');
$csrv->safe_psql('shop', 'GRANT EXECUTE ON FUNCTION snowflake_start_above(bigint) TO mover');
($ret, $out, $err) = $csrv->psql('shop', 'SELECT snowflake_start_above(1)', extra_params => [ '-U', 'mover' ]);
like($err, qr/permission denied for function snowflake_start_above\nDETAIL:  Only superusers can move the ids of a node\./,
	'... and refuses a role that is not a superuser even when granted');
($ret, $out, $err) = $csrv->psql('shop', 'SELECT snowflake_start_above(-1)');
like($err, qr/invalid snowflake id: -1/, '... and a negative id');

# ---- from the C extension to the SQL edition ------------------------------
set_clock($csrv, '+0');
$t_step = time;
$csrv->safe_psql('shop', "INSERT INTO orders (item) SELECT 'c before' FROM generate_series(1, 1000)");
set_clock($csrv, '-5');
$csrv->safe_psql('shop', "INSERT INTO orders (item) SELECT 'c borrowed' FROM generate_series(1, 3000)");
$ahead = $csrv->safe_psql('shop', 'SELECT borrowed_ahead_ms FROM snowflake_status');
borrowed_after_step($ahead, 5000, $t_step, 'the C extension borrowed ahead of its clock just before the move');
@before = ids_of($csrv, 'shop');
$h = $csrv->safe_psql('shop', 'SELECT snowflake_max_id(durable_mark) FROM snowflake_status');

set_clock($sqlsrv, '-5');
$sqlsrv->safe_psql('postgres', 'CREATE DATABASE shop2 OWNER app');
install_plain($sqlsrv, 'shop2', 'app', 'public');
safe_psql_as($sqlsrv, 'shop2', 'app', 'SELECT snowflake_configure(worker_id => 11, datacenter_id => 1)');
dump_orders($csrv, 'shop', $sqlsrv, 'shop2');
$sqlsrv->safe_psql('shop2', 'ALTER TABLE orders OWNER TO app');
# The arriving node's owner (not a superuser) takes the step.
move_step($csrv->connstr('shop'), $sqlsrv->connstr('shop2') . ' user=app');
crash($sqlsrv);
start_node($sqlsrv, faketime => 1);
safe_psql_as($sqlsrv, 'shop2', 'app', "INSERT INTO orders (item) SELECT 'sql after' FROM generate_series(1, 2000)");
@after = split /\n/, $sqlsrv->safe_psql('shop2', "SELECT id FROM orders WHERE item = 'sql after' ORDER BY id");
is(scalar(@after), 2000, 'the moved table takes ids from the SQL edition through its unchanged DEFAULT');
cmp_ok(min(@after), '>', $h, 'after the step (and a kill -9), every id is above the departing node\'s mark');
cmp_ok(min(@after), '>', max(@before), '... so above every id made before the move');
is($sqlsrv->safe_psql('shop2', 'SELECT count(*) = count(DISTINCT id) FROM orders'), 't',
	'no id twice in the table that went there and back');
# ---- an id further ahead of the clock than max_clock_backward_ms ---------
# Both editions refuse it (else the node could issue no id until 2080).
my ($r1, $o1, $e1) = $csrv->psql('shop', 'SELECT snowflake_start_above(9223372036854775807)');
like($e1, qr/ERROR:  snowflake id 9223372036854775807 is \d+ ms ahead of the clock\n.*more than max_clock_backward_ms \(10000 ms\) ahead/s,
	'the C extension refuses to start above an id too far ahead of its clock');
my ($r2, $o2, $e2) = psql_as($sqlsrv, 'shop2', 'app', 'SELECT snowflake_start_above(9223372036854775807)');
like($e2, qr/ERROR:  snowflake id 9223372036854775807 is \d+ ms ahead of the clock\n.*more than max_clock_backward_ms \(10000 ms\) ahead/s,
	'... and so does the SQL edition');
cmp_ok($csrv->safe_psql('shop', 'SELECT snowflake_nextval()'), '>', 0, '... and both go on making ids');
cmp_ok(safe_psql_as($sqlsrv, 'shop2', 'app', 'SELECT snowflake_nextval()'), '>', max(@after), '...');

$csrv->stop;
$sqlsrv->stop;
done_testing();
