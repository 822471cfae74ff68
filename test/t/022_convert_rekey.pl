# snowflake_convert_column(..., time_column): re-keying history from a time
# column, where it needs a real server and real numbers of rows:
#  * 100,000 orders (and 200,000 lines that reference them) converted from
#    serial: every id decodes to its row's placed_at to the millisecond, and
#    "the last day" asked by id gives exactly the rows it gives by placed_at;
#  * no id of the re-key equals a live id: ids issued before the re-key and
#    after it, by nextval and generate, are all apart from the re-keyed ones,
#    though they carry the same node identity;
#  * rows made at or after identity_since are refused, and converted once the
#    node has a fresh identity;
#  * run again after that identity change, nothing changes: neither the
#    re-keyed keys nor the ids snowflake_nextval() made;
#  * a live table is re-keyed in one call (late_rows => 'nextval') while a
#    writer inserts rows and their children;
#  * on a table big enough for several batches, the progress NOTICEs come
#    (rows, percent, time left), and cancelling mid-run leaves the tables as
#    they were;
#  * once identity_since is null for good (a fourth identity) the refusal offers
#    late_rows => 'nextval', which works;
#  * a configured node whose pair the registry reported retired by another
#    node refuses to re-key (today's keys would be the other node's ids),
#    and with late_rows => 'nextval' makes none of them.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use IPC::Run;
use Time::HiRes qw(usleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

my $node = PostgreSQL::Test::Cluster->new('rekey');
$node->init;
$node->append_conf('postgresql.conf', join("\n",
	"shared_preload_libraries = 'snowflake'", 'snowflake.datacenter_id = 2',
	'snowflake.worker_id = 7', "include_if_exists 'snowflake_case.conf'", ''));
$node->start;
my $q = sub { $node->safe_psql('postgres', $_[0]) };
$q->('CREATE EXTENSION snowflake');

my $since = $q->("SELECT identity_since FROM snowflake_status");
ok($since ne '', "the node knows since when it issues ids under its identity ($since)");

# Live ids before the re-key: one-by-one and in blocks.
$q->(q{
CREATE TABLE live (id bigint PRIMARY KEY, made text NOT NULL);
INSERT INTO live SELECT snowflake_nextval(), 'before, nextval' FROM generate_series(1, 50000);
INSERT INTO live SELECT x, 'before, generate' FROM snowflake_generate(50000) x;
});

# The history: 100,000 orders over the ten days before identity_since, the
# last one a millisecond before it, and the last 3,000 in its last 10 ms
# (crowded, but within their sequence numbers); keys in another order than
# the times; two lines per order.
$q->(qq{
CREATE TABLE orders (id serial PRIMARY KEY, placed_at timestamptz NOT NULL, customer text NOT NULL);
CREATE TABLE lines (id serial PRIMARY KEY, order_id integer NOT NULL REFERENCES orders, qty integer);
INSERT INTO orders (placed_at, customer)
SELECT date_trunc('milliseconds', '$since'::timestamptz) - interval '10 ms'
       - ((hashint4(g)::bigint + 2147483648) / 4294967296.0) * interval '10 days', 'c' || g
FROM generate_series(1, 97000) g;
INSERT INTO orders (placed_at, customer)
SELECT date_trunc('milliseconds', '$since'::timestamptz) - (1 + g % 10) * interval '1 ms'
       + (g % 1000) * interval '1 microsecond', 'late ' || g
FROM generate_series(1, 3000) g;
INSERT INTO lines (order_id, qty) SELECT o.id, l FROM orders o, generate_series(1, 2) l;
CREATE TABLE before AS SELECT id AS old_id, placed_at, customer FROM orders;
CREATE TABLE lines_before AS
    SELECT o.customer, l.qty FROM lines l JOIN orders o ON o.id = l.order_id;
});

my ($ret, $out, $err) = $node->psql('postgres',
	q{SELECT count(*) FROM snowflake_convert_column('orders', 'id', time_column => 'placed_at')});
is($ret, 0, 're-key of 100,000 orders succeeds');
like($err, qr/re-keyed 100000 rows of public\.orders from placed_at/, 'it says what it re-keyed');
like($err, qr/No millisecond holds more of these rows/, '... and that no row spilled');

is($q->(q{
SELECT count(*) || ' ' || count(*) FILTER (WHERE snowflake_timestamp(id) = date_trunc('milliseconds', placed_at))
FROM orders}), '100000 100000', 'every id decodes to its placed_at, to the millisecond');
is($q->(q{
SELECT count(*) FROM orders o JOIN before b USING (customer) WHERE o.placed_at <> b.placed_at}), '0',
	'every row kept its time');

# "The last day", by the time column and by the key.
my $last = $q->('SELECT max(placed_at) - interval \'1 day\' FROM orders');
my $by_time = $q->("SELECT count(*) FROM orders WHERE placed_at >= '$last'");
my $by_id = $q->("SELECT count(*) FROM orders WHERE snowflake_timestamp(id) >= '$last'");
cmp_ok($by_time, '>', 5000, "the last day holds many rows ($by_time)");
is($by_id, $by_time, 'the last day asked by the id gives as many rows as asked by placed_at');
is($q->(qq{
SELECT count(*) FROM (
    (SELECT id FROM orders WHERE placed_at >= '$last'
     EXCEPT SELECT id FROM orders WHERE snowflake_timestamp(id) >= '$last')
    UNION ALL
    (SELECT id FROM orders WHERE snowflake_timestamp(id) >= '$last'
     EXCEPT SELECT id FROM orders WHERE placed_at >= '$last')) d}), '0', '... and the same rows');
like($q->(qq{EXPLAIN SELECT count(*) FROM orders WHERE snowflake_timestamp(id) >= '$last'}),
	qr/orders_pkey/, '... from the primary key');

is($q->(q{
SELECT count(*) FROM (
    SELECT b.old_id, lag(b.old_id) OVER (ORDER BY o.id) AS prev_old,
           o.placed_at, lag(o.placed_at) OVER (ORDER BY o.id) AS prev_t
    FROM orders o JOIN before b USING (customer)) s
WHERE (placed_at, old_id) < (prev_t, prev_old)}), '0', 'ordering by id is ordering by (placed_at, old key)');
is($q->(q{
SELECT count(*) FROM (
    SELECT o.customer, l.qty FROM lines l JOIN orders o ON o.id = l.order_id
    EXCEPT ALL SELECT customer, qty FROM lines_before) d}) . ' '
	. $q->('SELECT count(*) FROM lines l JOIN orders o ON o.id = l.order_id'),
	'0 200000', 'every line still belongs to its order');

# Live ids after the re-key.
$q->(q{
INSERT INTO live SELECT snowflake_nextval(), 'after, nextval' FROM generate_series(1, 50000);
INSERT INTO live SELECT x, 'after, generate' FROM snowflake_generate(50000) x;
});
is($q->(q{SELECT count(*) FROM orders o JOIN live l ON l.id = o.id}), '0',
	'no re-keyed id equals a live id, issued before the re-key or after it');
is($q->(q{
SELECT count(DISTINCT (p.datacenter_id, p.worker_id)) || ' ' || min(p.datacenter_id) || '/' || min(p.worker_id)
FROM (SELECT id FROM orders UNION ALL SELECT id FROM live) a, LATERAL snowflake_parse(a.id) p}),
	'1 2/7', '... though both carry the same node identity');
is($q->(qq{
SELECT (SELECT max(id) FROM orders) < (SELECT min(id) FROM live)
   AND (SELECT max(snowflake_timestamp(id)) FROM orders) < '$since'}), 't',
	'every re-keyed id is below every live one, in the milliseconds before identity_since');

# Rows made since identity_since cannot take ids at their time under this
# identity: refused.  A fresh identity starts a new identity_since, and the
# same conversion goes through.
$q->(q{
CREATE TABLE tickets (id bigserial PRIMARY KEY, opened timestamptz NOT NULL);
INSERT INTO tickets (opened) SELECT clock_timestamp() - g * interval '1 hour' FROM generate_series(0, 99) g;
});
($ret, $out, $err) = $node->psql('postgres',
	q{SELECT count(*) FROM snowflake_convert_column('tickets', 'id', time_column => 'opened')});
isnt($ret, 0, 'rows made since identity_since are refused');
like($err, qr/(?:row has|rows have) opened at or after .*, since when this node has issued ids under its identity/,
	'... saying why');
like($err, qr/HINT:  Convert with late_rows => 'nextval'/, '... and what to do');
# New orders, with ids from snowflake_nextval() under worker 7, before the
# identity changes.
$q->(q{INSERT INTO orders (placed_at, customer) SELECT clock_timestamp(), 'new ' || g FROM generate_series(1, 1000) g});
reload_case($node, q{SELECT worker_id = 8 FROM snowflake_status}, 'snowflake.worker_id = 8');
my $new_since = $q->('SELECT identity_since FROM snowflake_status');
cmp_ok($q->("SELECT '$new_since'::timestamptz > '$since'::timestamptz"), 'eq', 't',
	"a fresh identity starts a new identity_since ($new_since)");
($ret, $out, $err) = $node->psql('postgres',
	q{SELECT count(*) FROM snowflake_convert_column('tickets', 'id', time_column => 'opened')});
is($ret, 0, '... and the conversion goes through') or diag($err);
$q->(q{INSERT INTO live SELECT x, 'worker 8' FROM snowflake_generate(20000) x});
is($q->(q{
SELECT count(*) FILTER (WHERE snowflake_timestamp(t.id) = date_trunc('milliseconds', t.opened)) || ' '
       || count(*) FILTER (WHERE (snowflake_parse(t.id)).worker_id = 8) || ' '
       || (SELECT count(*) FROM live l WHERE l.id IN (SELECT id FROM tickets))
FROM tickets t}), '100 100 0', 'the tickets decode to their time under worker 8, apart from its live ids');

# Run again after the identity change: every key is a snowflake id already
# (re-keyed under worker 7, made by snowflake_nextval() under worker 7, or
# re-keyed under worker 8), so nothing changes.
$q->(q{CREATE TABLE orders_snap AS SELECT id, customer FROM orders;
       CREATE TABLE tickets_snap AS SELECT id, opened FROM tickets});
foreach my $t ([ 'orders', 'placed_at' ], [ 'tickets', 'opened' ])
{
	($ret, $out, $err) = $node->psql('postgres',
		"SELECT count(*) FROM snowflake_convert_column('$t->[0]', 'id', time_column => '$t->[1]')");
	is($ret, 0, "$t->[0] converted again, under worker 8") or diag($err);
	like($err, qr/nothing to re-key: every key of public\.$t->[0] is a snowflake id already/, '... which it says');
}
is($q->(q{SELECT (SELECT count(*) FROM orders o JOIN orders_snap s USING (customer) WHERE o.id <> s.id) || ' '
          || (SELECT count(*) FROM tickets t JOIN tickets_snap s USING (opened) WHERE t.id <> s.id) || ' '
          || (SELECT count(*) FROM orders) || ' ' || (SELECT count(*) FROM tickets)}),
	'0 0 101000 100', 'a rerun after an identity change changes no key, nextval()\'s included');

# A live table, re-keyed in one call while a writer inserts rows and their
# children, one transaction a row: rows before identity_since get ids of
# their time, the writer's rows (all since) ids from snowflake_nextval().
$q->(q{
CREATE TABLE stream (id serial PRIMARY KEY, at timestamptz NOT NULL DEFAULT clock_timestamp());
CREATE TABLE stream_items (id serial PRIMARY KEY, stream_id integer NOT NULL REFERENCES stream);
INSERT INTO stream (at) SELECT '2025-01-01'::timestamptz + g * interval '1 minute' FROM generate_series(1, 500) g;
INSERT INTO stream_items (stream_id) SELECT id FROM stream;
});
my ($w_in, $w_out, $w_err) = ('', '', '');
my $writer = IPC::Run::start(
	[ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-c', q{
DO $$
DECLARE v bigint;
BEGIN
    FOR i IN 1 .. 300 LOOP
        INSERT INTO stream DEFAULT VALUES RETURNING id INTO v;
        INSERT INTO stream_items (stream_id) VALUES (v);
        COMMIT;
        PERFORM pg_sleep(0.01);
    END LOOP;
END
$$} ],
	'<', \$w_in, '>', \$w_out, '2>', \$w_err);
$node->poll_query_until('postgres', 'SELECT count(*) >= 550 FROM stream') or die 'the writer never wrote';
($ret, $out, $err) = $node->psql('postgres',
	q{SELECT count(*) FROM snowflake_convert_column('stream', 'id', time_column => 'at', late_rows => 'nextval')});
is($ret, 0, 'a live table is re-keyed in one call while a writer inserts') or diag($err);
like($err, qr/re-keyed \d+ rows of public\.stream from at .*; \d+ rows at or after identity_since \S+ \S+ got ids from snowflake_nextval\(\), up to \d+ ms after their time/,
	'... saying how many rows got ids from snowflake_nextval(), and how far from their time');
$writer->finish;
is($writer->result(0), 0, 'the writer ran to the end without an error') or diag($w_err);
is($q->(qq{
SELECT count(*) || ' ' || count(*) FILTER (WHERE at < '$new_since' AND snowflake_timestamp(id) = at) || ' '
       || count(*) FILTER (WHERE at >= '$new_since') || ' '
       || (SELECT count(*) FROM stream_items i JOIN stream s ON s.id = i.stream_id) || ' '
       || (SELECT count(*) FROM live l WHERE l.id IN (SELECT id FROM stream))
FROM stream}), '800 500 300 800 0',
	'the old rows decode to their time, the writer\'s rows all have ids, every item follows, no live id equals one');

# A table of several batches: progress NOTICEs, and a cancel that leaves
# everything as it was.
$q->(q{
CREATE TABLE big (id serial PRIMARY KEY, made timestamptz NOT NULL, pad text NOT NULL);
CREATE TABLE big_child (big_id integer NOT NULL REFERENCES big, n integer);
INSERT INTO big (made, pad) SELECT '2024-01-01'::timestamptz + g * interval '1 s', repeat('x', 40)
FROM generate_series(1, 300000) g;
INSERT INTO big_child SELECT g, g FROM generate_series(1, 300000) g;
});
my $fingerprint = q{
SELECT md5(string_agg(id::text || made::text, ',' ORDER BY id))
       || (SELECT md5(string_agg(big_id::text, ',' ORDER BY n)) FROM big_child)
       || (SELECT string_agg(format_type(atttypid, atttypmod), ',' ORDER BY attrelid, attnum)
           FROM pg_attribute WHERE attrelid IN ('big'::regclass, 'big_child'::regclass) AND attnum > 0)
       || (SELECT string_agg(conname, ',' ORDER BY conname) FROM pg_constraint
           WHERE conrelid IN ('big'::regclass, 'big_child'::regclass))
       || (SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'big'::regclass)
FROM big};
my $before = $q->($fingerprint);

my ($in, $o, $e) = ('', '', '');
my $h = IPC::Run::start(
	[ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-c',
	  q{SELECT count(*) FROM snowflake_convert_column('big', 'id', time_column => 'made')} ],
	'<', \$in, '>', \$o, '2>', \$e);
my $seen = 0;
foreach (1 .. 1200)
{
	$h->pump_nb;
	if ($e =~ /re-keying public\.big: \d+ rows updated/) { $seen = 1; last; }
	last unless $h->pumpable;
	usleep(100_000);
}
ok($seen, 'a progress NOTICE comes while the re-key runs');
$q->(q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%time_column%' AND pid <> pg_backend_pid()});
$h->finish;
like($e, qr/canceling statement due to user request/, 'the re-key is cancelled mid-run') or diag($e);
is($q->($fingerprint), $before, 'after the cancel, the tables are as they were: rows, types, constraints, default');

($ret, $out, $err) = $node->psql('postgres',
	q{SELECT count(*) FROM snowflake_convert_column('big', 'id', time_column => 'made')});
is($ret, 0, 'run to the end, the re-key succeeds');
my @progress = $err =~ /NOTICE:  re-keying public\.big: (\d+) rows updated, (\d+)% done, (\d+) s so far, about (\d+) s left$/mg;
cmp_ok(scalar(@progress) / 4, '>=', 4, 'progress NOTICEs: rows updated, percent done, time so far and left')
	or diag($err);
is($progress[-3], 100, '... the last at 100 %');
is($progress[-4], 600000, '... with every row of both tables updated');
like($err, qr/checking every row against its foreign key/, 'the foreign key check is announced');
is($q->(q{
SELECT count(*) FILTER (WHERE snowflake_timestamp(b.id) = b.made) || ' '
       || (SELECT count(*) FROM big_child c JOIN big b2 ON b2.id = c.big_id)
FROM big b}), '300000 300000', 'every big row decodes to its time and every child follows');

# More identities than the node remembers (7, 8, 9, then 10): identity_since
# is null for good.  The refusal says so and offers what works:
# late_rows => 'nextval', every row an id from snowflake_nextval().
reload_case($node, q{SELECT worker_id = 9 FROM snowflake_status}, 'snowflake.worker_id = 9');
reload_case($node, q{SELECT worker_id = 10 FROM snowflake_status}, 'snowflake.worker_id = 10');
is($q->('SELECT identity_since IS NULL FROM snowflake_status'), 't', 'after four identities, identity_since is null');
$q->(q{
CREATE TABLE notes (id serial PRIMARY KEY, made timestamptz NOT NULL);
INSERT INTO notes (made) SELECT '2024-06-01'::timestamptz + g * interval '1 hour' FROM generate_series(1, 200) g;
});
($ret, $out, $err) = $node->psql('postgres',
	q{SELECT count(*) FROM snowflake_convert_column('notes', 'id', time_column => 'made')});
isnt($ret, 0, 'then a re-key from the time column is refused');
like($err, qr/HINT:  Convert with late_rows => 'nextval': every row then gets an id from snowflake_nextval\(\)/,
	'... with a hint that offers what works') or diag($err);
unlike($err, qr/Give this node an identity/, '... and not another identity');
($ret, $out, $err) = $node->psql('postgres',
	q{SELECT count(*) FROM snowflake_convert_column('notes', 'id', time_column => 'made', late_rows => 'nextval')});
is($ret, 0, 'which works') or diag($err);
$q->(q{INSERT INTO live SELECT x, 'worker 10' FROM snowflake_generate(20000) x});
is($q->(q{SELECT count(*) || ' ' || count(DISTINCT id) || ' '
          || count(*) FILTER (WHERE (snowflake_parse(id)).worker_id = 10) || ' '
          || (SELECT count(*) FROM live l WHERE l.id IN (SELECT id FROM notes)) || ' '
          || bool_and(ordered)
          FROM (SELECT id, id > lag(id, 1, 0::bigint) OVER (ORDER BY made) AS ordered FROM notes) n}),
	'200 200 200 0 true', 'every note got an id of worker 10, in the order of its time, none equal to a live id');
$node->stop;

# A configured node whose pair the registry reported retired by another
# node (identity_not_before) must not re-key: the other node's ids lie in
# the milliseconds a re-key would use.  Node "other" issues ids under 3/9;
# the registry records 3/9 as retired by it; node "taker", configured with
# 3/9, learns it, and holds a table of rows made at the times of those ids.
my $registry = PostgreSQL::Test::Cluster->new('rekey_registry');
$registry->init;
$registry->start;
$registry->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $registry_line = "snowflake.registry = 'host=" . $registry->host . ' port=' . $registry->port . " dbname=postgres'";
my $other = new_node('rekey_other');
set_case($other, 'snowflake.datacenter_id = 3', 'snowflake.worker_id = 9');
$other->start;
$other->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my @other_ids = split /\n/, $other->safe_psql('postgres', 'SELECT snowflake_generate(3000)');
$other->stop;
my $until = max(map { unix_ms_of($_) } @other_ids) + 2000;
$registry->safe_psql('postgres',
	"SELECT snowflake_registry_retire('test:other', 3, 9, 'epoch'::timestamptz + $until * interval '1 ms')");
my $taker = new_node('rekey_taker');
set_case($taker, 'snowflake.datacenter_id = 3', 'snowflake.worker_id = 9', $registry_line);
$taker->start;
$taker->wait_for_log(qr/snowflake registrar: node \S+ retired datacenter_id 3 worker_id 9 until $until/)
  or die 'the taker never heard from the registry';
$taker->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$taker->poll_query_until('postgres', 'SELECT count(*) = 1 FROM (SELECT snowflake_nextval()) s', 't')
  or die 'the taker never issued an id';
$taker->poll_query_until('postgres', "SELECT pg_read_file('snowflake.state') LIKE '%identity_not_before_unix_ms $until%'")
  or diag 'the state file never recorded the time';
is(status($taker, 'identity_source') . ' ' . read_state($taker)->{identity_not_before_unix_ms},
	"configured $until", 'the taker is configured, and knows another node issued ids under 3/9 until then');
my $values = join(',', map { "($_)" } @other_ids);
$taker->safe_psql('postgres', qq{
CREATE TABLE other_ids (id bigint PRIMARY KEY);
INSERT INTO other_ids VALUES $values;
CREATE TABLE hist (id serial PRIMARY KEY, made timestamptz NOT NULL);
INSERT INTO hist (made) SELECT snowflake_timestamp(id) FROM other_ids ORDER BY id;
});
($ret, $out, $err) = $taker->psql('postgres',
	q{SELECT count(*) FROM snowflake_convert_column('hist', 'id', time_column => 'made')});
isnt($ret, 0, 'the re-key is refused on a node whose pair another node retired');
like($err, qr/another node may have issued ids under this node's identity/, '... saying why');
like($err, qr/Found: identity_not_before is .*: the registry said another node issued ids under the pair until then/,
	'... naming what it found');
my $equal = q{SELECT count(*) || ' ' || (SELECT count(*) FROM hist h JOIN other_ids o USING (id)) FROM hist};
is($taker->safe_psql('postgres', $equal), '3000 0', 'no key equals an id the other node issued');
($ret, $out, $err) = $taker->psql('postgres',
	q{SELECT count(*) FROM snowflake_convert_column('hist', 'id', time_column => 'made', late_rows => 'nextval')});
is($ret, 0, 'with late_rows => nextval it goes through') or diag($err);
is($taker->safe_psql('postgres', $equal), '3000 0', '... and still none does');
$taker->stop;
$registry->stop;
done_testing();
