# The SQL edition on a managed server: pg_tle preloaded, no file of the C
# extension, and everything done as a role that is not a superuser:
#   - installing through pg_tle (dist/snowflake_sql_pg_tle.sql, the steps
#     docs/managed.md shows) and configuring the node;
#   - what only the owner can do, what another role needs granted (the
#     grants docs/managed.md shows), and what no session can do (SET, writing
#     the configuration or the sequences);
#   - ids from 4 concurrent sessions: no duplicate, each session increasing;
#     the same from 8 sessions with a layout of 4 ids per millisecond and no
#     node bits, where every millisecond carries over (the hardest case for
#     the guard against a concurrent move to a new millisecond);
#   - one identity per database;
#   - a transaction that holds ids (and moved to a new millisecond) blocks
#     no other session, and holds no advisory or row lock;
#   - kill -9 of the postmaster: every id received from a committed insert
#     before the crash is below every id after it;
#   - a hot standby refuses to make ids.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use lib "$FindBin::RealBin/../t";
use Time::HiRes qw(usleep time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest qw(crash decode_id start_node sf_concurrency start_client finish_client max min);
use SqlEditionTest;

my $node = managed_node('managed', streaming => 1);
start_node($node);

# ---- no C extension here --------------------------------------------------
my ($ret, $out, $err) = $node->psql('postgres', 'CREATE EXTENSION snowflake');
isnt($ret, 0, 'the managed server has no C extension: CREATE EXTENSION snowflake fails');
like($err, qr/extension "snowflake" is not available|could not open extension control file/,
	'... because its files are not there');

# ---- install through pg_tle, as a role that is not a superuser ------------
# The role the page names, with a schema of its own (its "$user" schema).
add_role($node, 'app_owner', 'CREATE SCHEMA app_owner AUTHORIZATION app_owner');
is($node->safe_psql('postgres', "SELECT rolsuper FROM pg_roles WHERE rolname = 'app_owner'"), 'f',
	'app_owner is not a superuser');
# The page's steps, as the page shows them: what the service's administrator
# does, then (as app_owner) psql -f of the dist file and the SQL block.
$node->safe_psql('postgres', doc_block('pg_tle-setup.sql'));
my $steps = doc_block('pg_tle-install.sql');
like($steps, qr/CREATE EXTENSION snowflake_sql/, 'docs/managed.md shows the pg_tle steps');
SqlEditionTest::run_file_as($node, 'postgres', 'app_owner', dist_file('snowflake_sql_pg_tle.sql'));
safe_psql_as($node, 'postgres', 'app_owner', $steps);
is($node->safe_psql('postgres', "SELECT extname FROM pg_extension WHERE extname = 'snowflake_sql'"),
	'snowflake_sql', 'app created the extension with the documented steps');
is($node->safe_psql('postgres',
		"SELECT r.rolname FROM pg_extension e JOIN pg_roles r ON r.oid = e.extowner WHERE e.extname = 'snowflake_sql'"),
	'app_owner', 'app_owner owns it');
my $ids = 'app_owner';    # its own schema: the documented steps create the extension there
like(safe_psql_as($node, 'postgres', 'app_owner', "SELECT extnamespace::regnamespace FROM pg_extension WHERE extname = 'snowflake_sql'"),
	qr/^$ids$/, "... in schema $ids");

# ---- configuring ----------------------------------------------------------
safe_psql_as($node, 'postgres', 'app_owner', "SELECT $ids.snowflake_configure(worker_id => 7, datacenter_id => 2)");
my $id = safe_psql_as($node, 'postgres', 'app_owner', "SELECT $ids.snowflake_nextval()");
my $p = decode_id($id);
is("$p->{datacenter_id}/$p->{worker_id}", '2/7', 'ids carry the configured identity');
cmp_ok(abs($p->{unix_ms} - time * 1000), '<', 5000, '... and the time they were made');

# ---- only the owner configures; no session changes the identity -----------
add_role($node, 'reader', "GRANT USAGE ON SCHEMA $ids TO reader");
($ret, $out, $err) = psql_as($node, 'postgres', 'reader', "SELECT $ids.snowflake_nextval()");
like($err, qr/permission denied for (sequence snowflake_sql_counter|function snowflake_sql_next_slow)/,
	'another role makes no ids without the grants');
($ret, $out, $err) = psql_as($node, 'postgres', 'reader', "SELECT $ids.snowflake_sql_next_slow()");
like($err, qr/permission denied for function snowflake_sql_next_slow/, '... nor calls the slow path');
# The grants docs/managed.md shows, for this role and schema.
safe_psql_as($node, 'postgres', 'app_owner',
	doc_block('app-grants.sql') =~ s/\bids\b/$ids/gr =~ s/\bapp\b/reader/gr);
cmp_ok(safe_psql_as($node, 'postgres', 'reader', "SELECT $ids.snowflake_nextval()"), '>', $id,
	'with the documented grants, another role makes ids');
like(safe_psql_as($node, 'postgres', 'reader', "SELECT worker_id FROM $ids.snowflake_status"), qr/^7$/,
	'... and reads snowflake_status');
($ret, $out, $err) = psql_as($node, 'postgres', 'reader', "SELECT $ids.snowflake_configure(worker_id => 8)");
like($err, qr/permission denied for function snowflake_configure/, '... but cannot configure the node');
($ret, $out, $err) = psql_as($node, 'postgres', 'reader', "SELECT $ids.snowflake_start_above(1)");
like($err, qr/permission denied for function snowflake_start_above/, '... nor move its ids');
($ret, $out, $err) = psql_as($node, 'postgres', 'reader', "UPDATE $ids.snowflake_sql_config SET worker_id = 8");
like($err, qr/permission denied for table snowflake_sql_config/, '... nor write the configuration');
($ret, $out, $err) = psql_as($node, 'postgres', 'reader', "SELECT setval('$ids.snowflake_sql_counter', 1)");
like($err, qr/permission denied for sequence snowflake_sql_counter/, '... nor set the counter');
($ret, $out, $err) = psql_as($node, 'postgres', 'reader', "SELECT nextval('$ids.snowflake_sql_bound')");
like($err, qr/permission denied for sequence snowflake_sql_bound/, '... nor move the bound');
$id = safe_psql_as($node, 'postgres', 'reader', <<"EOS");
SET snowflake.worker_id = 9;
SET snowflake.datacenter_id = 9;
CREATE TEMP SEQUENCE snowflake_sql_counter;
CREATE TEMP SEQUENCE snowflake_sql_bound;
SET search_path = pg_temp, $ids;
SELECT snowflake_nextval();
EOS
$p = decode_id($id);
is("$p->{datacenter_id}/$p->{worker_id}", '2/7',
	'no SET and no object of the session changes the identity its ids carry');
($ret, $out, $err) = psql_as($node, 'postgres', 'app_owner',
	"SELECT $ids.snowflake_configure(worker_id => 7, datacenter_id => 2, sequence_bits => 10)");
like($err, qr/ERROR:  sequence_bits differs from the value the ids of this node were issued under/,
	'a layout change after ids were made is refused');
($ret, $out, $err) = psql_as($node, 'postgres', 'app_owner',
	"SELECT $ids.snowflake_configure(worker_id => 7, datacenter_id => 2, epoch_ms => 1288834974658)");
like($err, qr/ERROR:  epoch_ms differs from the value/, '... and so is a later epoch');
($ret, $out, $err) = psql_as($node, 'postgres', 'app_owner', "SELECT $ids.snowflake_configure(worker_id => 32)");
like($err, qr/ERROR:  invalid worker_id: 32\nDETAIL:  Valid values are 0 to 31 \(worker_bits = 5\)/,
	'a worker_id outside the layout is refused, naming the range');

# ---- 4 sessions at once; then 8 with every millisecond carrying over ------
my $conn = conninfo_as($node, 'postgres', 'app_owner', $ids);
my $dir = $node->basedir;
sf_concurrency();
for my $batch (1, 100)
{
	my $c = start_client($conn, "$dir/four-$batch.txt", 4, $batch == 1 ? 5000 : 50000, $batch);
	is(finish_client($c), 0,
		"4 sessions, $batch id(s) per round trip: no duplicate, each session increasing");
}
$node->safe_psql('postgres', 'CREATE DATABASE carry');
$node->safe_psql('carry', "CREATE EXTENSION pg_tle; CREATE SCHEMA ids AUTHORIZATION app_owner");
install_pg_tle($node, 'carry', 'app_owner', 'ids');
($ret, $out, $err) = psql_as($node, 'carry', 'app_owner', 'SELECT ids.snowflake_nextval()');
isnt($ret, 0, 'snowflake_nextval() before snowflake_configure fails');
like($err, qr/ERROR:  the snowflake node identity is not configured/, '... saying so');
like($err, qr/HINT:  Run SELECT snowflake_configure\(worker_id => N\)/,
	'... with a hint naming snowflake_configure');
safe_psql_as($node, 'carry', 'app_owner',
	'SELECT ids.snowflake_configure(worker_id => 0, datacenter_bits => 0, worker_bits => 0, sequence_bits => 2)');
for my $batch (1, 20)
{
	my $c = start_client(conninfo_as($node, 'carry', 'app_owner', 'ids'), "$dir/carry-$batch.txt", 8, 1500,
		$batch);
	is(finish_client($c), 0,
		"8 sessions, 4 ids per millisecond and no node bits, $batch per round trip: no duplicate, each increasing");
}

# ---- one identity per database ----------------------------------------------
my @a = split /\n/, safe_psql_as($node, 'postgres', 'app_owner', "SELECT $ids.snowflake_nextval() FROM generate_series(1, 1000)");
my @b = split /\n/, safe_psql_as($node, 'carry', 'app_owner', 'SELECT ids.snowflake_nextval() FROM generate_series(1, 20)');
is(scalar(grep { decode_id($_)->{worker_id} == 7 } @a), 1000, 'database postgres: its own identity');
is($node->safe_psql('carry', "SELECT count(*) FROM unnest('{" . join(',', @b) . "}'::bigint[]) x WHERE (ids.snowflake_parse(x)).worker_id = 0"),
	20, 'database carry: its own identity and layout');

# ---- an open transaction with ids blocks nobody -----------------------------
my $s = open_session($node, 'postgres', 'app_owner');
session_do($s, "SET search_path = $ids");
session_do($s, 'BEGIN');
# Several milliseconds: the session moves the node to new ones (setval) in
# its open transaction.
my $held = session_do($s, 'SELECT snowflake_nextval() FROM (SELECT pg_sleep(0.002) FROM generate_series(1, 20)) s');
is(scalar(split /\n/, $held), 20, 'session A holds 20 ids, made over several milliseconds, in an open transaction');
my $apid = session_do($s, 'SELECT pg_backend_pid()');
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_locks WHERE pid = $apid AND (locktype = 'advisory' OR locktype = 'tuple' OR relation = '$ids.snowflake_sql_lock'::regclass)"),
	0, '... and holds no advisory lock, no row lock and not the edition\'s lock');
my $t0 = time;
($ret, $out, $err) = psql_as($node, 'postgres', 'reader', <<"EOS");
SET lock_timeout = '2s';
SET statement_timeout = '60s';
SELECT count(DISTINCT $ids.snowflake_nextval()) FROM (SELECT pg_sleep(0.002) FROM generate_series(1, 200)) s;
EOS
is($ret, 0, 'session B makes ids meanwhile (over new milliseconds too) without waiting for A') or diag $err;
is($out, '200', '... all of them');
cmp_ok(time - $t0, '<', 30, sprintf('... in %.1f s', time - $t0));
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_locks WHERE NOT granted"), 0,
	'nothing waits on a lock');
session_do($s, 'COMMIT');
close_session($s);

# ---- kill -9 ---------------------------------------------------------------
# Ids in committed inserts (the rule of serial: an id of a transaction that
# committed is never issued again).
safe_psql_as($node, 'postgres', 'app_owner', "CREATE TABLE $ids.t (id bigint PRIMARY KEY DEFAULT $ids.snowflake_nextval())");
my $ins = "INSERT INTO $ids.t SELECT FROM generate_series(1,\$1) RETURNING id";
my $c1 = start_client($conn, "$dir/crash.txt", 4, 100_000_000, 20, '--sql', $ins, '--reconnect',
	'--after-reconnect', 2_000);
$node->poll_query_until('postgres', "SELECT count(*) >= 20000 FROM $ids.t") or die 'no inserts';
crash($node);
start_node($node);
is(finish_client($c1), 0, '4 sessions inserting through kill -9: no duplicate, each session increasing');
my (%pre, %post);
open my $fh, '<', "$dir/crash.txt" or die $!;
while (<$fh>)
{
	my ($sess, $v) = split;
	if ($v eq 'RECONNECT') { $post{$sess} = []; next; }
	if (exists $post{$sess}) { push @{ $post{$sess} }, $v; }
	else { push @{ $pre{$sess} }, $v; }
}
close $fh;
my @pre = map { @$_ } values %pre;
my @post = map { @$_ } values %post;
is(scalar(keys %post), 4, 'every session reconnected after the crash');
cmp_ok(min(@post), '>', max(@pre), 'every id after the crash is above every committed id before it ('
	  . scalar(@pre) . ' before, ' . scalar(@post) . ' after)');
is($node->safe_psql('postgres', "SELECT count(*) = count(DISTINCT id) FROM $ids.t"), 't',
	'the table holds no id twice');

# ---- a hot standby refuses ---------------------------------------------------
$node->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('standby', install_path => $node->install_path);
$standby->init_from_backup($node, 'b', has_streaming => 1);
$standby->start;
safe_psql_as($node, 'postgres', 'app_owner', "SELECT $ids.snowflake_nextval()");
$node->wait_for_catchup($standby);
($ret, $out, $err) = $standby->psql('postgres', "SELECT $ids.snowflake_nextval()");
isnt($ret, 0, 'a hot standby makes no id');
like($err, qr/ERROR:  cannot generate snowflake ids during recovery/, '... and says why');
like($standby->safe_psql('postgres', "SELECT ($ids.snowflake_parse($id)).worker_id"), qr/^7$/,
	'... while decoding works there');
$standby->stop;
$node->stop;
done_testing();
