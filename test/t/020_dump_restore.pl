# Dump and restore: pg_dump of a database whose tables take their ids from
# DEFAULT snowflake_nextval() (plus a table partitioned by id with bounds
# from snowflake_min_id, an expression index and a view on the toolkit
# functions) restores cleanly into a fresh server with another worker id,
# keeps every id, and new rows there get new, unique ids of the new node.
#
# With SNOWFLAKE_DUMP_SOURCE_INSTALL set (the pg17/upgrade-from-15 suite sets
# it to Debian 12's PostgreSQL 15), the source runs that older PostgreSQL and
# the dump crosses major versions.  The dump is always made with the pg_dump
# of the version under test, as PostgreSQL recommends for upgrades.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $source_install = $ENV{SNOWFLAKE_DUMP_SOURCE_INSTALL};

sub new_snowflake_node
{
	my ($name, $datacenter_id, $worker_id, $install) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name, $install ? (install_path => $install) : ());
	$node->init;
	$node->append_conf('postgresql.conf', join("\n",
		"shared_preload_libraries = 'snowflake'",
		"snowflake.datacenter_id = $datacenter_id",
		"snowflake.worker_id = $worker_id", ''));
	$node->start;
	return $node;
}

my $source = new_snowflake_node('dump_source', 3, 1, $source_install);
note 'source: ' . $source->safe_psql('postgres', 'SELECT version()');
$source->safe_psql('postgres', 'CREATE DATABASE shop');
$source->safe_psql('shop', q{
CREATE EXTENSION snowflake;
CREATE TABLE orders (
    id bigint PRIMARY KEY DEFAULT snowflake_nextval(),
    note text NOT NULL
);
CREATE INDEX orders_made ON orders (snowflake_timestamp(id, 1288834974657, 5, 5, 12));
CREATE VIEW order_api AS
    SELECT snowflake_encode(id) AS public_id, snowflake_format(id, 'ORD-') AS serial, note
    FROM orders;
-- Partitioned by id, one partition per month around now, plus a default.
CREATE TABLE events (
    id bigint NOT NULL DEFAULT snowflake_nextval(),
    kind text NOT NULL
) PARTITION BY RANGE (id);
CREATE TABLE events_prev PARTITION OF events FOR VALUES
    FROM (snowflake_min_id(date_trunc('month', now(), 'UTC') - interval '1 month'))
    TO (snowflake_min_id(date_trunc('month', now(), 'UTC')));
CREATE TABLE events_this PARTITION OF events FOR VALUES
    FROM (snowflake_min_id(date_trunc('month', now(), 'UTC')))
    TO (snowflake_min_id(date_trunc('month', now(), 'UTC') + interval '1 month'));
CREATE TABLE events_other PARTITION OF events DEFAULT;
ALTER TABLE events ADD PRIMARY KEY (id);
INSERT INTO orders (note) SELECT 'order ' || g FROM generate_series(1, 1000) g;
INSERT INTO events (kind) SELECT 'event ' || g FROM generate_series(1, 500) g;
});

# What the source holds, to compare after the restore.
my $fingerprint_sql = q{
SELECT (SELECT count(*) || ' ' || md5(string_agg(id::text || note, ',' ORDER BY id)) FROM orders)
    || ' / ' ||
       (SELECT count(*) || ' ' || md5(string_agg(id::text || kind, ',' ORDER BY id)) FROM events)
};
my $source_rows = $source->safe_psql('shop', $fingerprint_sql);
my $source_bounds = $source->safe_psql('shop', q{
SELECT string_agg(c.relname || ' ' || pg_get_expr(c.relpartbound, c.oid), E'\n' ORDER BY c.relname)
FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid
WHERE i.inhparent = 'events'::regclass});

my $dir = PostgreSQL::Test::Utils::tempdir;
my $plain = "$dir/shop.sql";
my $custom = "$dir/shop.dump";
command_ok([ 'pg_dump', '-d', $source->connstr('shop'), '-f', $plain ], 'pg_dump (plain) succeeds');
command_ok([ 'pg_dump', '-Fc', '-d', $source->connstr('shop'), '-f', $custom ],
	'pg_dump (custom) succeeds');
my $dump_text = slurp_file($plain);
like($dump_text, qr/CREATE EXTENSION IF NOT EXISTS snowflake/, 'dump creates the extension');
like($dump_text, qr/DEFAULT public\.snowflake_nextval\(\)/, 'dump keeps the DEFAULT');
unlike($dump_text, qr/CREATE FUNCTION/, 'dump does not copy the extension\'s functions');

# A fresh server: same datacenter, another worker id.
my $target = new_snowflake_node('dump_target', 3, 2);
if ($source_install)
{
	my $major = sub { int($_[0]->safe_psql('postgres', 'SHOW server_version_num') / 10000) };
	cmp_ok($major->($source), '<', $major->($target),
		'the dump crosses major versions: ' . $major->($source) . ' to ' . $major->($target));
}
$target->safe_psql('postgres', 'CREATE DATABASE shop');
$target->safe_psql('postgres', 'CREATE DATABASE shop_custom');
$target->command_checks_all(
	[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'shop', '-f', $plain ],
	0, [qr//], [qr/^$/], 'plain dump restores with psql, no error or warning');
$target->command_checks_all(
	[ 'pg_restore', '--exit-on-error', '-d', 'shop_custom', $custom ],
	0, [qr/^$/], [qr/^$/], 'custom dump restores with pg_restore, no error or warning');

foreach my $db ('shop', 'shop_custom')
{
	is($target->safe_psql($db, $fingerprint_sql), $source_rows, "$db: every row and id restored");
	is($target->safe_psql($db, q{
SELECT string_agg(c.relname || ' ' || pg_get_expr(c.relpartbound, c.oid), E'\n' ORDER BY c.relname)
FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid
WHERE i.inhparent = 'events'::regclass}), $source_bounds, "$db: partition bounds restored as they were");
	is($target->safe_psql($db, "SELECT extversion FROM pg_extension WHERE extname = 'snowflake'"),
		$source->safe_psql('shop', "SELECT extversion FROM pg_extension WHERE extname = 'snowflake'"),
		"$db: extension at the source's version");
	is($target->safe_psql($db, q{
SELECT count(*) FROM orders
WHERE snowflake_timestamp(id, 1288834974657, 5, 5, 12) >= 'epoch'}), '1000',
		"$db: expression index query works");
	is($target->safe_psql($db, q{SELECT count(*) FROM order_api WHERE serial LIKE 'ORD-%'}),
		'1000', "$db: view on the toolkit functions works");

	# New rows take new ids from this node.
	$target->safe_psql($db, q{
INSERT INTO orders (note) SELECT 'new ' || g FROM generate_series(1, 1000) g;
INSERT INTO events (kind) SELECT 'new ' || g FROM generate_series(1, 500) g;
});
	is($target->safe_psql($db, q{
SELECT count(*) || ' ' || count(DISTINCT id) FROM (
    SELECT id FROM orders UNION ALL SELECT id FROM events) a}),
		'3000 3000', "$db: old and new ids are all distinct");
	is($target->safe_psql($db, q{
SELECT string_agg(DISTINCT p.datacenter_id || '/' || p.worker_id || ' ' || split_part(note, ' ', 1), ', ')
FROM orders, LATERAL snowflake_parse(id) p}),
		'3/1 order, 3/2 new', "$db: old rows decode to worker 1, new rows to worker 2");
	is($target->safe_psql($db, q{
SELECT bool_and(snowflake_timestamp(id) BETWEEN now() - interval '10 minutes'
                                           AND clock_timestamp() + interval '10 seconds')
FROM orders WHERE note LIKE 'new%'}), 't', "$db: new ids carry the current time");
}

# One generator per node: ids are unique across tables too.
is($target->safe_psql('shop', q{
SELECT count(*) FROM orders o JOIN events e USING (id)}), '0', 'no id is shared between tables');

# One table: pg_dump -t dumps the table and nothing it depends on, so the
# extension is not in the dump and its DEFAULT snowflake_nextval() cannot be
# restored into a database without it.  docs/operations.md shows the two
# ways that work: create the extension in the target first, or let the dump
# carry it with --extension.
my $one = "$dir/orders_only.sql";
command_ok([ 'pg_dump', '-d', $source->connstr('shop'), '-t', 'orders', '-f', $one ],
	'pg_dump -t orders succeeds');
unlike(slurp_file($one), qr/CREATE EXTENSION/, 'pg_dump -t leaves the extension out');
$target->safe_psql('postgres', 'CREATE DATABASE one_bare');
my ($ret, $out, $err) = $target->psql('one_bare', undef,
	extra_params => [ '-v', 'ON_ERROR_STOP=1', '-f', $one ]);
isnt($ret, 0, 'pg_dump -t into a database without the extension fails');
like($err, qr/function public\.snowflake_nextval\(\) does not exist/,
	'... because the DEFAULT names a function the target lacks');

$target->safe_psql('postgres', 'CREATE DATABASE one_with_extension');
$target->safe_psql('one_with_extension', 'CREATE EXTENSION snowflake');
$target->command_checks_all(
	[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'one_with_extension', '-f', $one ],
	0, [qr//], [qr/^$/], 'pg_dump -t restores into a database that has the extension');

my $carried = "$dir/orders_with_extension.dump";
command_ok([ 'pg_dump', '-Fc', '-d', $source->connstr('shop'), '-t', 'orders',
		'--extension=snowflake', '-f', $carried ],
	'pg_dump -t orders --extension=snowflake succeeds');
$target->safe_psql('postgres', 'CREATE DATABASE one_carried');
$target->command_checks_all(
	[ 'pg_restore', '--exit-on-error', '-d', 'one_carried', $carried ],
	0, [qr/^$/], [qr/^$/], 'pg_dump -t --extension restores into a bare database');
foreach my $db ('one_with_extension', 'one_carried')
{
	is($target->safe_psql($db, q{
SELECT count(*) || ' ' || md5(string_agg(id::text || note, ',' ORDER BY id)) FROM orders}),
		(split / \/ /, $source_rows)[0], "$db: every row and id of orders restored");
	is($target->safe_psql($db, q{
INSERT INTO orders (note) VALUES ('new') RETURNING (snowflake_parse(id)).worker_id}),
		'2', "$db: new rows take ids of the new node");
}

$source->stop;
$target->stop;
done_testing();
