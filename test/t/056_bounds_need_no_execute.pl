# The id bounds the planner adds need no EXECUTE privilege beyond what the
# query named.  On a site that revokes EXECUTE from PUBLIC on every function
# of the schema and grants a reader only the function its queries call
# (snowflake_timestamp(bigint), or snowflake_made_within for <@), every form
# whose bound is not a constant when planning runs, and gives the rows it
# gives with snowflake.time_predicates off: a time relative to now(), a
# date, a timestamp without time zone, a parameter of a generic plan, a
# column of another table in a join, a range that is not a constant, and
# the pruning of partitions when the executor starts.  Each plan is checked
# to hold the bound (an index condition of EXTRACT(epoch FROM ...)) or to
# have pruned with it, so the test cannot pass by the bound being left out.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

my $node = new_node('no_execute');
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE shop');
$node->safe_psql('shop', q{
CREATE EXTENSION snowflake;
CREATE TABLE orders (id bigint PRIMARY KEY, amount int);
INSERT INTO orders SELECT snowflake_min_id(now() - g * interval '1 hour') + g, g FROM generate_series(0, 240) g;
CREATE TABLE events (id bigint NOT NULL, PRIMARY KEY (id)) PARTITION BY RANGE (id);
SELECT count(*) FROM snowflake_create_partitions('events', date_trunc('day', now(), 'UTC') - interval '11 days',
                                                 date_trunc('day', now(), 'UTC') + interval '2 days', '1 day');
INSERT INTO events SELECT id FROM orders;
CREATE TABLE promos (starts timestamptz, ends timestamptz);
INSERT INTO promos VALUES (now() - interval '2 days', now() - interval '1 day'),
                          (now() - interval '5 days', now() - interval '4 days');
ANALYZE;
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC;
CREATE ROLE reader LOGIN;
GRANT SELECT ON orders, events, promos TO reader;
GRANT EXECUTE ON FUNCTION snowflake_timestamp(bigint) TO reader;
GRANT EXECUTE ON FUNCTION snowflake_made_within(bigint, tstzrange) TO reader;
});

my $plans = 'SET enable_seqscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off;';
my $generic = 'SET plan_cache_mode = force_generic_plan;';
my @cases = (
	[ 'a time relative to now()', '',
	  q{SELECT count(*), sum(amount) FROM orders WHERE snowflake_timestamp(id) >= now() - interval '2 days'} ],
	[ 'a date', '',
	  q{SELECT count(*), sum(amount) FROM orders WHERE snowflake_timestamp(id) >= current_date - 3} ],
	[ 'a date constant', '',
	  q{SELECT count(*), sum(amount) FROM orders WHERE snowflake_timestamp(id) < (now() - interval '3 days')::date} ],
	[ 'a timestamp without time zone', '',
	  q{SELECT count(*), sum(amount) FROM orders WHERE snowflake_timestamp(id) <= localtimestamp - interval '1 day'} ],
	[ 'a parameter of a generic plan',
	  "$generic PREPARE q(timestamptz, timestamptz) AS SELECT count(*), sum(amount) FROM orders"
		. ' WHERE snowflake_timestamp(id) >= $1 AND snowflake_timestamp(id) < $2;',
	  q{EXECUTE q(now() - interval '3 days', now() - interval '1 day')} ],
	[ 'a column of another table in a join', '',
	  q{SELECT count(*), sum(o.amount) FROM promos p JOIN orders o
	    ON snowflake_timestamp(o.id) >= p.starts AND snowflake_timestamp(o.id) < p.ends} ],
	[ 'a range that is not a constant', '',
	  q{SELECT count(*), sum(amount) FROM orders WHERE id <@ tstzrange(now() - interval '1 day', now())} ],
	[ 'a range parameter of a generic plan',
	  "$generic PREPARE r(tstzrange) AS SELECT count(*), sum(amount) FROM orders WHERE id <@ \$1;",
	  q{EXECUTE r(tstzrange(now() - interval '4 days', now() - interval '2 days', '(]'))} ],
	[ 'pruning when the executor starts',
	  "$generic PREPARE p(timestamptz, timestamptz) AS SELECT count(*) FROM events"
		. ' WHERE snowflake_timestamp(id) >= $1 AND snowflake_timestamp(id) < $2;',
	  q{EXECUTE p(now() - interval '3 days', now() - interval '1 day')} ],
	[ 'pruning a date when the executor starts', '',
	  q{SELECT count(*) FROM events WHERE snowflake_timestamp(id) >= current_date - 1} ],);

foreach my $case (@cases)
{
	my ($name, $prefix, $query) = @$case;
	my %result;
	foreach my $setting ('on', 'off')
	{
		my ($ret, $out, $err) = $node->psql('shop',
			"SET ROLE reader; SET snowflake.time_predicates = $setting; $plans $prefix $query");
		$result{$setting} = "$ret $out $err";
	}
	like($result{off}, qr/^0 \d+/, "$name: runs with the setting off");
	is($result{on}, $result{off}, "$name: the same rows with the setting on, as the reader");
	my $plan = $node->safe_psql('shop', "SET ROLE reader; $plans $prefix EXPLAIN (COSTS OFF) $query");
	like($plan, qr/Cond: .*id [<>]= \((LEAST|GREATEST)\(.*EXTRACT\(epoch FROM |Subplans Removed: [1-9]/,
		"$name: the plan has the bound, of built-in functions (or has pruned with it)");
	unlike($plan, qr/snowflake_m(in|ax)_id_/, "$name: and calls no bound function");
}
like($node->safe_psql('shop', "SET ROLE reader; $plans $generic"
	  . ' PREPARE p(timestamptz, timestamptz) AS SELECT count(*) FROM events'
	  . ' WHERE snowflake_timestamp(id) >= $1 AND snowflake_timestamp(id) < $2;'
	  . q{ EXPLAIN (COSTS OFF) EXECUTE p(now() - interval '3 days', now() - interval '1 day')}),
	qr/Subplans Removed: \d+/, 'the executor prunes the partitions');

$node->stop;
done_testing();
