# snowflake_convert_column (issue 13) where it needs more than one server:
#  * a database converted from serial / IDENTITY / nextval() keys (foreign
#    keys, a partitioned table, a kept sequence, the extension in its own
#    schema too) dumps with pg_dump, plain and custom format, and restores
#    into a fresh server with no error or warning: same schema, same rows,
#    and inserts there get new ids of the new node that join the old rows;
#  * the converter refuses, changing nothing, where the extension cannot
#    issue ids: on a hot standby, and on a node without a worker id.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

sub snowflake_node
{
	my ($name, %opt) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(allows_streaming => $opt{streaming} ? 1 : 0);
	my @conf = ("shared_preload_libraries = 'snowflake'", 'snowflake.datacenter_id = 3');
	push @conf, "snowflake.worker_id = $opt{worker}" if defined $opt{worker};
	push @conf, "include_if_exists 'snowflake_case.conf'";
	$node->append_conf('postgresql.conf', join("\n", @conf, ''));
	$node->start;
	return $node;
}

# The tables of an application keyed by serial, IDENTITY and nextval(), with
# foreign keys, a partitioned table and a sequence shared by two tables.
my $schema_sql = q{
CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL);
CREATE TABLE orders (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                     customer_id integer NOT NULL REFERENCES customers, note text);
CREATE TABLE order_lines (id bigserial PRIMARY KEY, order_id integer NOT NULL REFERENCES orders,
                          qty smallint NOT NULL);
CREATE TABLE events (id serial, at date NOT NULL, order_id integer REFERENCES orders,
                     PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
CREATE TABLE events_old PARTITION OF events FOR VALUES FROM ('2000-01-01') TO ('2025-01-01');
CREATE TABLE events_new PARTITION OF events FOR VALUES FROM ('2025-01-01') TO (MAXVALUE);
CREATE SEQUENCE shared_seq;
CREATE TABLE tickets (id integer PRIMARY KEY DEFAULT nextval('shared_seq'), note text);
CREATE TABLE vouchers (id integer PRIMARY KEY DEFAULT nextval('shared_seq'), note text);
INSERT INTO customers (name) SELECT 'c' || g FROM generate_series(1, 200) g;
INSERT INTO orders (customer_id, note) SELECT 1 + g % 200, 'o' || g FROM generate_series(1, 500) g;
INSERT INTO order_lines (order_id, qty) SELECT 1 + g % 500, 1 + g % 7 FROM generate_series(1, 1500) g;
INSERT INTO events (at, order_id)
    SELECT date '2020-01-01' + g * 3, 1 + g % 500 FROM generate_series(1, 3000) g;
INSERT INTO tickets (note) SELECT 't' || g FROM generate_series(1, 50) g;
INSERT INTO vouchers (note) SELECT 'v' || g FROM generate_series(1, 50) g;
};
my $convert_sql = q{
SELECT count(*) FROM snowflake_convert_column('customers', 'id', drop_sequence => true);
SELECT count(*) FROM snowflake_convert_column('orders', 'id');
SELECT count(*) FROM snowflake_convert_column('order_lines', 'id');
SELECT count(*) FROM snowflake_convert_column('events', 'id', drop_sequence => true);
SELECT count(*) FROM snowflake_convert_column('tickets', 'id', drop_sequence => true);
};
# Rows made after the conversion, joined to old ones.
my $new_rows_sql = q{
INSERT INTO customers (name) SELECT 'new c' || g FROM generate_series(1, 20) g;
INSERT INTO orders (customer_id, note)
    SELECT c.id, 'new o' || c.id FROM customers c WHERE c.id <= 20 OR c.name LIKE 'new%';
INSERT INTO order_lines (order_id, qty) SELECT o.id, 1 FROM orders o WHERE o.note LIKE 'new%';
INSERT INTO events (at, order_id) SELECT date '2026-01-01', o.id FROM orders o WHERE o.note LIKE 'new%';
INSERT INTO tickets (note) VALUES ('new t');
INSERT INTO vouchers (note) VALUES ('new v');
};
my $fingerprint_sql = q{
SELECT string_agg(t || ' ' || n || ' ' || h, E'\n' ORDER BY t) FROM (
  SELECT 'customers' t, count(*) n, md5(string_agg(id || name, ',' ORDER BY id)) h FROM customers
  UNION ALL SELECT 'orders', count(*), md5(string_agg(id || ':' || customer_id || note, ',' ORDER BY id)) FROM orders
  UNION ALL SELECT 'order_lines', count(*), md5(string_agg(id || ':' || order_id || ':' || qty, ',' ORDER BY id)) FROM order_lines
  UNION ALL SELECT 'events', count(*), md5(string_agg(id || ':' || at || ':' || order_id, ',' ORDER BY id, at)) FROM events
  UNION ALL SELECT 'tickets', count(*), md5(string_agg(id || note, ',' ORDER BY id)) FROM tickets
  UNION ALL SELECT 'vouchers', count(*), md5(string_agg(id || note, ',' ORDER BY id)) FROM vouchers) s
};

# A schema-only dump as text, without the random \restrict key of newer
# pg_dump releases.
sub schema_text
{
	my ($file) = @_;
	return join('', grep { !/^\\(un)?restrict / } split /^/, slurp_file($file));
}

my $source = snowflake_node('conv_source', worker => 1, streaming => 1);
$source->safe_psql('postgres', 'CREATE DATABASE shop');
$source->safe_psql('postgres', 'CREATE DATABASE shop_sf');
$source->safe_psql('shop', "CREATE EXTENSION snowflake;\n$schema_sql");
$source->safe_psql('shop_sf',
	"CREATE SCHEMA sf; CREATE EXTENSION snowflake SCHEMA sf;\n$schema_sql");

# ---------------------------------------------------------------- standby
# A hot standby cannot issue ids (it shares its primary's identity): the
# converter refuses there, dry run included, with snowflake_nextval()'s
# SQLSTATE and message.
$source->backup('conv_bk');
my $standby = PostgreSQL::Test::Cluster->new('conv_standby');
$standby->init_from_backup($source, 'conv_bk', has_streaming => 1);
set_case($standby, 'snowflake.worker_id = 9');
$standby->start;
$source->wait_for_catchup($standby);
is($standby->safe_psql('shop', 'SELECT pg_is_in_recovery()'), 't', 'standby is in recovery');
foreach my $dry ('false', 'true')
{
	my ($ret, $out, $err) = $standby->psql('shop',
		"\\set VERBOSITY verbose\nSELECT * FROM snowflake_convert_column('customers', 'id', dry_run => $dry)");
	isnt($ret, 0, "standby: convert (dry_run $dry) fails");
	like($err, qr/ERROR:  25006: cannot generate snowflake ids during recovery/,
		"standby: convert (dry_run $dry) refused with SQLSTATE 25006 and the recovery message");
	is($out, '', "standby: convert (dry_run $dry) returns no statement");
}
$standby->stop;

# --------------------------------------------------------- no worker id
my $target = snowflake_node('conv_target');    # no snowflake.worker_id yet
$target->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$target->safe_psql('postgres', 'CREATE DATABASE scratch');
$target->safe_psql('scratch', "CREATE EXTENSION snowflake;\n$schema_sql");
my $columns_sql = q{
SELECT string_agg(attrelid::regclass || '.' || attname || ' ' || format_type(atttypid, atttypmod)
                  || ' ' || attidentity::text || ' ' || coalesce(pg_get_expr(adbin, adrelid), ''), E'\n'
                  ORDER BY 1)
FROM pg_attribute LEFT JOIN pg_attrdef ON adrelid = attrelid AND adnum = attnum
WHERE attrelid IN ('customers'::regclass, 'orders'::regclass) AND attnum > 0};
my $before = $target->safe_psql('scratch', $columns_sql);
{
	my ($ret, $out, $err) = $target->psql('scratch',
		"\\set VERBOSITY verbose\nSELECT * FROM snowflake_convert_column('orders', 'id')");
	isnt($ret, 0, 'no worker id: convert fails');
	like($err, qr/ERROR:  55000: snowflake\.worker_id is not set/,
		'no worker id: refused with SQLSTATE 55000 and the message of snowflake_nextval()');
	like($err, qr/HINT:  Set snowflake\.worker_id/, 'no worker id: with the hint');
}
is($target->safe_psql('scratch', $columns_sql), $before,
	'no worker id: nothing changed');
$target->safe_psql('postgres', 'DROP DATABASE scratch');
# Now give it its identity (a reload is enough).
reload_case($target, 'SELECT worker_id = 2 FROM snowflake_status', 'snowflake.worker_id = 2');

# --------------------------------------- another session's temp table
{
	my $session = $target->background_psql('postgres');
	$session->query_safe('CREATE TEMP TABLE mine (id serial PRIMARY KEY)');
	my $nsp = $session->query_safe('SELECT nspname FROM pg_namespace WHERE oid = pg_my_temp_schema()');
	chomp $nsp;
	like($nsp, qr/^pg_temp_\d+$/, "the other session's temp schema: $nsp");
	my ($ret, $out, $err) = $target->psql('postgres',
		"\\set VERBOSITY verbose\nSELECT * FROM snowflake_convert_column('$nsp.mine', 'id')");
	like($err, qr/ERROR:  0A000: cannot convert temporary tables of other sessions/,
		"another session's temp table: refused (0A000)");
	is($session->query_safe(q{SELECT format_type(atttypid, atttypmod) FROM pg_attribute
	                          WHERE attrelid = 'mine'::regclass AND attname = 'id'}), 'integer',
		"another session's temp table: unchanged");
	$session->quit;
}

# ------------------------------------------------------------- locks
# The converter takes ACCESS EXCLUSIVE on the table and on every table whose
# column widens.  Behind a reader of a referencing table it waits, holding
# the table it locked first; with a lock_timeout it gives up, nothing changed.
$target->safe_psql('postgres', 'CREATE DATABASE locks');
$target->safe_psql('locks', q{
CREATE EXTENSION snowflake;
CREATE TABLE parent (id serial PRIMARY KEY);
CREATE TABLE child (parent_id integer REFERENCES parent);
INSERT INTO parent SELECT FROM generate_series(1, 10);
INSERT INTO child SELECT id FROM parent;
});
my $types_sql = q{
SELECT string_agg(attrelid::regclass || '.' || attname || ' ' || format_type(atttypid, atttypmod), ', '
                  ORDER BY attrelid::regclass::text)
FROM pg_attribute WHERE attrelid IN ('parent'::regclass, 'child'::regclass) AND attname IN ('id', 'parent_id')};
my $reader = $target->background_psql('locks');
$reader->query_safe('BEGIN');
$reader->query_safe('SELECT count(*) FROM child');
{
	my ($ret, $out, $err) = $target->psql('locks',
		"SET lock_timeout = '100ms';\nSELECT * FROM snowflake_convert_column('parent', 'id')");
	like($err, qr/canceling statement due to lock timeout/,
		'behind a reader of the referencing table, with lock_timeout: gives up');
	is($target->safe_psql('locks', $types_sql), 'child.parent_id integer, parent.id integer',
		'... and nothing changed');
}
my $converter = $target->background_psql('locks');
my $converter_pid = $converter->query_safe('SELECT pg_backend_pid()');
$converter->query_until(qr/converting/,
	"\\echo converting\nSELECT count(*) FROM snowflake_convert_column('parent', 'id');\n");
$target->poll_query_until('locks', qq{
SELECT count(*) = 1 FROM pg_locks
WHERE pid = $converter_pid AND relation = 'child'::regclass AND mode = 'AccessExclusiveLock' AND NOT granted})
  or die 'the converter never waited for the lock on child';
is($target->safe_psql('locks', qq{
SELECT count(*) FROM pg_locks
WHERE pid = $converter_pid AND relation = 'parent'::regclass AND mode = 'AccessExclusiveLock' AND granted}),
	'1', 'waiting for child, the converter holds ACCESS EXCLUSIVE on parent');
is($target->safe_psql('locks', $types_sql), 'child.parent_id integer, parent.id integer',
	'nothing changed while it waits');
$reader->query_safe('COMMIT');
$reader->quit;
$converter->quit;    # waits for the conversion to finish
is($target->safe_psql('locks', $types_sql), 'child.parent_id bigint, parent.id bigint',
	'once the reader is gone, the conversion completes');
$target->safe_psql('postgres', 'DROP DATABASE locks');

# ------------------------------------------------- convert, then dump
foreach my $db ('shop', 'shop_sf')
{
	my $path = $db eq 'shop_sf' ? 'SET search_path = public, sf;' : '';
	$source->safe_psql($db, "$path\n$convert_sql");
	my $defaults = $source->safe_psql($db, q{
SET search_path = '';
SELECT string_agg(attrelid::regclass || '.' || attname || ' ' || format_type(atttypid, atttypmod)
                  || ' ' || pg_get_expr(adbin, adrelid), E'\n' ORDER BY attrelid::regclass::text)
FROM pg_catalog.pg_attribute JOIN pg_catalog.pg_attrdef ON adrelid = attrelid AND adnum = attnum
WHERE attname = 'id' AND attrelid IN ('public.customers'::regclass, 'public.orders'::regclass,
      'public.order_lines'::regclass, 'public.events'::regclass, 'public.tickets'::regclass)});
	my $ext = $db eq 'shop_sf' ? 'sf' : 'public';
	is($defaults, join("\n",
			"public.customers.id bigint $ext.snowflake_nextval()",
			"public.events.id bigint $ext.snowflake_nextval()",
			"public.order_lines.id bigint $ext.snowflake_nextval()",
			"public.orders.id bigint $ext.snowflake_nextval()",
			"public.tickets.id bigint $ext.snowflake_nextval()"),
		"$db: converted: bigint with DEFAULT $ext.snowflake_nextval()");
	is($source->safe_psql($db, q{
SELECT to_regclass('customers_id_seq') IS NULL, to_regclass('events_id_seq') IS NULL,
       to_regclass('order_lines_id_seq') IS NOT NULL, to_regclass('shared_seq') IS NOT NULL}),
		't|t|t|t', "$db: dropped sequences gone; kept and shared ones there");
	$source->safe_psql($db, "$path\n$new_rows_sql");
}

my $dir = PostgreSQL::Test::Utils::tempdir;
foreach my $db ('shop', 'shop_sf')
{
	my $source_rows = $source->safe_psql($db, $fingerprint_sql);
	my $source_schema = "$dir/$db.source.schema.sql";
	$source->command_ok([ 'pg_dump', '-s', '-d', $db, '-f', $source_schema ],
		"$db: pg_dump --schema-only of the source");
	$source->command_ok([ 'pg_dump', '-d', $db, '-f', "$dir/$db.sql" ], "$db: pg_dump (plain)");
	$source->command_ok([ 'pg_dump', '-Fc', '-d', $db, '-f', "$dir/$db.dump" ],
		"$db: pg_dump (custom)");
	my $ext = $db eq 'shop_sf' ? 'sf' : 'public';
	like(slurp_file("$dir/$db.sql"), qr/DEFAULT \Q$ext\E\.snowflake_nextval\(\)/,
		"$db: the dump keeps DEFAULT $ext.snowflake_nextval()");

	foreach my $format ('plain', 'custom')
	{
		my $to = "${db}_$format";
		$target->safe_psql('postgres', "CREATE DATABASE $to");
		if ($format eq 'plain')
		{
			$target->command_checks_all(
				[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $to, '-f', "$dir/$db.sql" ],
				0, [qr//], [qr/^$/], "$to: restores with psql, no error or warning");
		}
		else
		{
			$target->command_checks_all(
				[ 'pg_restore', '--exit-on-error', '-d', $to, "$dir/$db.dump" ],
				0, [qr/^$/], [qr/^$/], "$to: restores with pg_restore, no error or warning");
		}
		is($target->safe_psql($to, $fingerprint_sql), $source_rows, "$to: every row and id restored");
		my $target_schema = "$dir/$to.schema.sql";
		$target->command_ok([ 'pg_dump', '-s', '-d', $to, '-f', $target_schema ],
			"$to: pg_dump --schema-only of the restored database");
		is(schema_text($target_schema), schema_text($source_schema),
			"$to: schema identical to the source's");
		is($target->safe_psql($to, 'SELECT last_value FROM shared_seq'),
			$source->safe_psql($db, 'SELECT last_value FROM shared_seq'),
			"$to: the kept, shared sequence restored at its value");

		# Inserts after the restore: ids of this node (worker 2), above every
		# old id, joining the old rows through the foreign keys.
		my $path = $db eq 'shop_sf' ? 'SET search_path = public, sf;' : '';
		my $max_before = $target->safe_psql($to, q{
SELECT max(m) FROM (SELECT max(id) m FROM customers UNION ALL SELECT max(id) FROM orders
                    UNION ALL SELECT max(id) FROM order_lines UNION ALL SELECT max(id) FROM events) s});
		$target->safe_psql($to, "$path\n$new_rows_sql");
		is($target->safe_psql($to, qq{
$path
SELECT count(*), bool_and(id > $max_before), bool_and((snowflake_parse(id)).worker_id = 2)
FROM customers WHERE id > $max_before}), "20|t|t", "$to: new customers get worker 2's ids above all old ids");
		is($target->safe_psql($to, qq{
SELECT count(*) > 0, count(o.id) = count(*), count(c.id) = count(*),
       count(*) FILTER (WHERE c.id <= 200) > 0
FROM order_lines l LEFT JOIN orders o ON o.id = l.order_id
LEFT JOIN customers c ON c.id = o.customer_id WHERE l.id > $max_before}), 't|t|t|t',
			"$to: every new order line joins its order and its customer, old customers included");
		is($target->safe_psql($to, q{
SELECT count(*) = count(DISTINCT id) FROM (SELECT id FROM customers UNION ALL SELECT id FROM orders
    UNION ALL SELECT id FROM order_lines UNION ALL SELECT id FROM events) s
WHERE id > 4294967296}), 't', "$to: snowflake ids distinct across tables");
		is($target->safe_psql($to, q{
SELECT count(*) FROM events e JOIN orders o ON o.id = e.order_id
WHERE e.at >= '2026-01-01'}),
			$target->safe_psql($to, q{SELECT count(*) FROM events WHERE at >= '2026-01-01'}),
			"$to: new events (partitioned table) join their orders");
		is($target->safe_psql($to, q{SELECT count(*) FROM vouchers WHERE note LIKE 'new%'}), '2',
			"$to: the table still on the shared sequence inserts");
		my ($ret, $out, $err) = $target->psql($to, 'INSERT INTO order_lines (order_id, qty) VALUES (-1, 1)');
		like($err, qr/violates foreign key constraint/, "$to: foreign keys still enforced");
	}
}

$source->stop;
$target->stop;
done_testing();
