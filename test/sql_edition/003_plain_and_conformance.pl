# The plain script (dist/snowflake_sql.sql) on a server without pg_tle and
# without the C extension loaded, as a role whose only right is CREATE on
# one schema; the two editions side by side:
#   - install, configure, ids; the script run again updates in place and
#     keeps the identity and the ids increasing; pg_dump keeps the identity;
#   - conformance: test/sql_edition/conformance.sql (decoding, time bounds,
#     text forms, the operator, errors and all) gives the same output from
#     the C extension and from the SQL edition, with the default layout and
#     with another epoch and layout;
#   - ids of the SQL edition decode the same with the C extension on
#     another server.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use lib "$FindBin::RealBin/../t";
use File::Compare qw(compare);
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest qw(decode_id start_node max min);
use SqlEditionTest;

my $plain = plain_node('plain');
start_node($plain);
is($plain->safe_psql('postgres', "SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_tle'"),
	'0', 'this server has no pg_tle');
is($plain->safe_psql('postgres', 'SHOW shared_preload_libraries'), '', '... and loads no library');

# ---- install as a role with CREATE on one schema, and nothing else -------
add_role($plain, 'owner1', 'CREATE SCHEMA ids', 'GRANT USAGE, CREATE ON SCHEMA ids TO owner1');
install_plain($plain, 'postgres', 'owner1', 'ids');
is($plain->safe_psql('postgres', "SELECT count(*) FROM pg_proc WHERE proname = 'snowflake_nextval' AND proowner = 'owner1'::regrole"),
	'1', 'owner1 installed the plain script into schema ids');
safe_psql_as($plain, 'postgres', 'owner1', 'SELECT ids.snowflake_configure(worker_id => 11, datacenter_id => 4)');
my @first = split /\n/, safe_psql_as($plain, 'postgres', 'owner1',
	'SELECT ids.snowflake_nextval() FROM generate_series(1, 5000)');
ok(increasing(@first), '5,000 ids, increasing');
is(scalar(grep { my $p = decode_id($_); $p->{datacenter_id} == 4 && $p->{worker_id} == 11 } @first),
	5000, '... all with the configured identity');
# snowflake_generate(n): n ids, increasing, above the ones before, with
# snowflake_nextval()'s between two calls above them too.
my @gen = split /\n/, safe_psql_as($plain, 'postgres', 'owner1',
	'SELECT x FROM ids.snowflake_generate(20000) x; SELECT ids.snowflake_nextval(); '
	  . 'SELECT x FROM ids.snowflake_generate(3) x');
is(scalar(@gen), 20004, 'snowflake_generate(20000), a nextval, snowflake_generate(3): 20,004 ids');
ok(increasing(@first, @gen), '... increasing, above the ids before');
is(scalar(grep { my $p = decode_id($_); $p->{datacenter_id} == 4 && $p->{worker_id} == 11 } @gen),
	20004, '... all with the configured identity');
push @first, @gen;
is(safe_psql_as($plain, 'postgres', 'owner1', 'SELECT ids.snowflake_sql_version()'),
	`sed -n "s/^default_version = '\\([^']*\\)'.*/\\1/p" @{[SnowflakeTest::tree_root()]}/snowflake.control`
	  =~ s/\n//r, 'snowflake_sql_version() is the version made');

# Run again: an update in place (the objects are replaced, the state kept).
install_plain($plain, 'postgres', 'owner1', 'ids');
my @again = split /\n/, safe_psql_as($plain, 'postgres', 'owner1',
	'SELECT ids.snowflake_nextval() FROM generate_series(1, 100)');
ok(increasing(@first, @again), 'the script run again: ids go on increasing');
is(decode_id($again[0])->{worker_id}, 11, '... with the identity kept');

# pg_dump keeps the identity (the configuration is data of the database).
my $dump = $plain->basedir . '/plain.dump';
$plain->command_ok([ $plain->installed_command('pg_dump'), '-Fc', '-f', $dump, '-d', $plain->connstr('postgres') ],
	'pg_dump of the database');
$plain->safe_psql('postgres', 'CREATE DATABASE restored');
$plain->command_ok([ $plain->installed_command('pg_restore'), '-d', $plain->connstr('restored'), $dump ],
	'pg_restore into another database');
is($plain->safe_psql('restored', 'SELECT datacenter_id, worker_id FROM ids.snowflake_status'), '4|11',
	'the restored copy has the identity (a copy that makes ids needs a new one: docs/managed.md)');
cmp_ok($plain->safe_psql('restored', 'SELECT ids.snowflake_nextval()'), '>', max(@first, @again),
	'... and its ids go on above the dumped ones');

# ---- conformance: the same output from both editions ----------------------
my $queries = "$FindBin::RealBin/conformance.sql";

# psql's transcript of the file, errors with their SQLSTATE, without the
# LOCATION lines (which name C files or PL/pgSQL functions).
sub transcript
{
	my ($node, $db, $options, $out) = @_;
	my ($o, $e);
	local $ENV{PGOPTIONS} = $options // '';
	IPC::Run::run([ $node->installed_command('psql'), '-X', '-a', '-v', 'VERBOSITY=verbose',
			'-v', 'SHOW_CONTEXT=never', '-d', $node->connstr($db), '-f', $queries ],
		'>', \$o, '2>&1');
	$o =~ s/^LOCATION:.*\n//mg;
	$o =~ s/^psql:[^:]*:(\d+): /psql:$1: /mg;
	open my $fh, '>', $out or die $!;
	print $fh $o;
	close $fh;
	return $o;
}

sub conforms
{
	my ($what, $c_node, $c_db, $sql_node, $sql_db) = @_;
	my $dir = $sql_node->basedir;
	(my $f = $what) =~ s/\W+/_/g;
	my $c = transcript($c_node, $c_db, '', "$dir/c-$f.out");
	my $s = transcript($sql_node, $sql_db, '-c search_path=ids', "$dir/sql-$f.out");
	like($c, qr/910499571847892992/, "conformance ($what): the C extension answers");
	my $errors = () = $c =~ /^psql:\d+: ERROR:/mg;
	cmp_ok($errors, '>', 40, "... including $errors errors");
	my $same = compare("$dir/c-$f.out", "$dir/sql-$f.out") == 0;
	ok($same, "conformance ($what): the SQL edition gives the same output, errors included");
	diag `diff -u '$dir/c-$f.out' '$dir/sql-$f.out' | head -60` unless $same;
}

# Default layout: the C extension (not loaded: decoding needs no preloading)
# in another database of the same server.
$plain->safe_psql('postgres', 'CREATE DATABASE c_default');
$plain->safe_psql('c_default', 'CREATE EXTENSION snowflake');
conforms('default layout', $plain, 'c_default', $plain, 'postgres');

# snowflake_decode is planned into the query's own expression (its speed
# depends on it): over a column, no call of snowflake_decode is left, and
# each format's reading is there.
for my $case ([ 'base62', qr/'\[0:127\]=/ ], [ 'base32', qr/'\[0:127\]=/ ],
	[ 'hex', qr/::bit\(64\)/ ])
{
	my ($format, $reads) = @$case;
	my $plan = $plain->safe_psql('postgres',
		'SET search_path = ids; CREATE TEMP TABLE texts (x text); '
		  . "EXPLAIN (VERBOSE, COSTS OFF) SELECT snowflake_decode(x, '$format') FROM texts");
	unlike($plan, qr/snowflake_decode\(/, "snowflake_decode($format) is inlined into the query");
	like($plan, $reads, '... with its reading of the digits');
}

# snowflake_parse(id) is PL/pgSQL without a SET of its own (its speed depends
# on it: an SQL function that returns a row runs the executor on every call,
# a SET changes a setting on every call), and the layout it folds into its
# plans follows a new configuration in the same session.
is($plain->safe_psql('postgres',
		"SELECT l.lanname || ' ' || (p.proconfig IS NULL) FROM pg_proc p "
		  . "JOIN pg_language l ON l.oid = p.prolang WHERE p.oid = 'ids.snowflake_parse(bigint)'::regprocedure"),
	'plpgsql true', 'snowflake_parse(id) is PL/pgSQL, without SET');
$plain->safe_psql('postgres', 'CREATE DATABASE relayout');
$plain->safe_psql('relayout', 'CREATE SCHEMA ids; GRANT USAGE, CREATE ON SCHEMA ids TO owner1');
install_plain($plain, 'relayout', 'owner1', 'ids');
is(safe_psql_as($plain, 'relayout', 'owner1',
		"SELECT count(*) FROM ids.snowflake_configure(worker_id => 1);
		 SELECT worker_id || '/' || sequence FROM ids.snowflake_parse(4101);
		 SELECT count(*) FROM ids.snowflake_configure(worker_id => 1, worker_bits => 4, sequence_bits => 13);
		 SELECT worker_id || '/' || sequence FROM ids.snowflake_parse(4101);"),
	"1\n1/5\n1\n0/4101", '... and follows a new layout in the same session');

# Another epoch and layout: a C server configured with them, and the SQL
# edition configured the same.
my $c_custom = c_node('c_custom', "snowflake.epoch = '2020-01-01 00:00:00+00'",
	'snowflake.datacenter_bits = 3', 'snowflake.worker_bits = 7', 'snowflake.sequence_bits = 10',
	'snowflake.worker_id = 100');
start_node($c_custom);
$c_custom->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$plain->safe_psql('postgres', 'CREATE DATABASE custom');
$plain->safe_psql('custom', 'CREATE SCHEMA ids; GRANT USAGE, CREATE ON SCHEMA ids TO owner1');
install_plain($plain, 'custom', 'owner1', 'ids');
safe_psql_as($plain, 'custom', 'owner1',
	'SELECT ids.snowflake_configure(worker_id => 100, epoch_ms => 1577836800000, datacenter_bits => 3, worker_bits => 7, sequence_bits => 10)');
conforms('epoch 2020, layout 3/7/10', $c_custom, 'postgres', $plain, 'custom');

# ---- ids of the SQL edition decoded by the C extension on another server --
my $c_default = c_node('c_decoder', 'snowflake.worker_id = 1');
start_node($c_default);
$c_default->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $decode = <<'EOS';
SET TimeZone = 'UTC';
SELECT string_agg(format('%s|%s|%s|%s|%s|%s|%s', x, p.ts, p.unix_ms, p.datacenter_id, p.worker_id,
                         p.sequence, snowflake_timestamp(x)), E'\n' ORDER BY x)
FROM unnest('{IDS}'::bigint[]) x, snowflake_parse(x) p
EOS
for my $case ([ 'postgres', $c_default, 'the default layout' ], [ 'custom', $c_custom, 'epoch 2020, layout 3/7/10' ])
{
	my ($db, $c, $what) = @$case;
	my @ids = split /\n/, safe_psql_as($plain, $db, 'owner1',
		'SELECT ids.snowflake_nextval() FROM generate_series(1, 2000)');
	my $q = $decode =~ s/\{IDS\}/'{' . join(',', @ids) . '}'/er;
	my $by_c = $c->safe_psql('postgres', $q);
	my $by_sql = $plain->safe_psql($db, "SET search_path = ids; $q");
	is(scalar(split /\n/, $by_c), 2000, "$what: the C extension on another server decodes 2,000 ids");
	is($by_c, $by_sql, '... exactly as the SQL edition does');
	my @fields = map { [ split /\|/ ] } split /\n/, $by_c;
	is(scalar(grep { $_->[3] eq ($db eq 'custom' ? '0' : '4') && $_->[4] eq ($db eq 'custom' ? '100' : '11') } @fields),
		2000, '... to the identity of the node that made them');
}
# ---- the layout guard cannot be got around ---------------------------------
# (In database wide below, after ids: DELETE then configure, and a row
# written with the triggers disabled, as a data-only restore does.)
sub layout_guard_checks
{
	my ($db) = @_;
	my ($ret, $out, $err) = psql_as($plain, $db, 'owner1',
		'DELETE FROM ids.snowflake_sql_config; '
		  . 'SELECT ids.snowflake_configure(worker_id => 0, datacenter_bits => 0, worker_bits => 0, sequence_bits => 10)');
	like($err, qr/ERROR:  sequence_bits differs from the value the ids of this node were issued under/,
		'DELETE of the configuration, then a new layout: refused');
	$plain->safe_psql($db, <<'EOS');
BEGIN;
ALTER TABLE ids.snowflake_sql_config DISABLE TRIGGER ALL;  -- as pg_restore --disable-triggers
DELETE FROM ids.snowflake_sql_config;
INSERT INTO ids.snowflake_sql_config (epoch_ms, datacenter_bits, worker_bits, sequence_bits,
    datacenter_id, worker_id, clock_backward_policy, max_clock_backward_ms)
VALUES (1288834974657, 0, 0, 10, 0, 0, 'borrow', 10000);
ALTER TABLE ids.snowflake_sql_config ENABLE TRIGGER ALL;
COMMIT;
EOS
	install_plain($plain, $db, 'owner1', 'ids');    # bakes the row it finds
	is($plain->safe_psql($db, "SELECT string_agg(DISTINCT tgenabled::text, ',') FROM pg_trigger "
			  . "WHERE tgname LIKE 'snowflake_sql_config_not_%'"),
		'A', 'installing the script again fires the replication guard in apply workers again');
	($ret, $out, $err) = psql_as($plain, $db, 'owner1', 'SELECT pg_sleep(0.002); SELECT ids.snowflake_nextval()');
	like($err, qr/ERROR:  sequence_bits differs from the value the ids of this node were issued under/,
		'a row written without the triggers (a data-only restore): no id, and an error that says why');
}

# ---- the fast path's clock; a lifetime past timestamptz --------------------
# At every exact millisecond (and 999 us after it) of 100,000, the clock's
# millisecond by floor, as the slow path (numeric) and the C extension take it.
is(safe_psql_as($plain, 'postgres', 'owner1', <<'EOS'), '0', "the fast path's clock takes the millisecond by floor");
SELECT count(*) FROM generate_series(0, 99999) i,
     LATERAL (VALUES (TIMESTAMPTZ '2026-11-27 10:00:00+00' + i * INTERVAL '1.001 ms'),
                     (TIMESTAMPTZ '2026-11-27 10:00:00.000999+00' + i * INTERVAL '1 ms')) t(ts)
WHERE ids.snowflake_sql_unix_ms(ts) <> floor(extract(epoch FROM ts) * 1000)
EOS
$plain->safe_psql('postgres', 'CREATE DATABASE wide');
$plain->safe_psql('wide', 'CREATE SCHEMA ids; GRANT USAGE, CREATE ON SCHEMA ids TO owner1');
install_plain($plain, 'wide', 'owner1', 'ids');
safe_psql_as($plain, 'wide', 'owner1',
	'SELECT ids.snowflake_configure(worker_id => 0, datacenter_bits => 0, worker_bits => 0, sequence_bits => 9)');
is(safe_psql_as($plain, 'wide', 'owner1', 'SELECT timestamp_bits, lifetime_end FROM ids.snowflake_status'),
	'54|infinity', 'snowflake_status: a lifetime past timestamptz\'s range is infinity, as in the C extension');
safe_psql_as($plain, 'wide', 'owner1', 'SELECT ids.snowflake_nextval() FROM generate_series(1, 100)');
layout_guard_checks('wide');

$c_default->stop;
$c_custom->stop;
$plain->stop;
done_testing();
