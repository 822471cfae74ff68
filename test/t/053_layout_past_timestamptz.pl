# A layout whose lifetime runs past timestamptz's range (the year 294276):
# epoch 2020-01-01, datacenter_bits 0, worker_bits 2, sequence_bits 1, so
# 60 timestamp bits, some 36 million years.  The server accepts it, so every
# function and view must behave consistently under it:
#   - snowflake_status works, its lifetime_end is infinity;
#   - ids are made, decoded and formatted as under any layout;
#   - an id whose time has no timestamptz (the largest ids) is an ERROR
#     22008 wherever its time is asked for, as in the plain filter;
#   - the bound functions never fail on a time;
#   - time conditions answer from the id's index with the plain filter's
#     rows, and raise its error when they read such an id;
#   - snowflake_create_partitions makes partitions as under any layout.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('wide_layout');
$node->init;
$node->append_conf('postgresql.conf', <<'EOC');
shared_preload_libraries = 'snowflake'
snowflake.worker_id = 1
snowflake.epoch = '2020-01-01 00:00:00+00'
snowflake.datacenter_bits = 0
snowflake.worker_bits = 2
snowflake.sequence_bits = 1
TimeZone = 'UTC'
max_parallel_workers_per_gather = 0
EOC
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');

sub query { return $node->safe_psql('postgres', $_[0]); }

# The status view never fails.
is(query(q{SELECT timestamp_bits, lifetime_end, epoch FROM snowflake_status}),
	'60|infinity|2020-01-01 00:00:00+00', 'snowflake_status: lifetime_end is infinity');
is(query(q{SELECT count(*) FROM snowflake_status WHERE lifetime_end > '294276-01-01'}),
	'1', 'lifetime_end compares after every time');

# Ids are made and decoded.
my $id = query('SELECT snowflake_nextval()');
like($id, qr/^\d+$/, 'an id is made');
is(query("SELECT abs(extract(epoch FROM now() - snowflake_timestamp($id))) < 60"),
	't', 'its time is now');
is(query("SELECT (snowflake_parse($id)).worker_id"), '1', 'snowflake_parse decodes it');
like(query("SELECT snowflake_format($id)"), qr/^\d+$/, 'snowflake_format formats it');

# The largest id's time has no timestamptz: the same ERROR everywhere.
my $max = '9223372036854775807';
for my $q ("SELECT snowflake_timestamp($max)", "SELECT snowflake_parse($max)",
	"SELECT snowflake_timestamp($max, 1577836800000, 0, 2, 1)")
{
	my ($rc, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\n$q");
	like($err, qr/ERROR:  22008: timestamp out of range/, "$q: ERROR 22008");
}

# The bound functions never fail on a time.
is( query(
		q{SELECT snowflake_max_id_until('infinity') = 9223372036854775807,
		         snowflake_min_id_since('infinity') IS NULL,
		         snowflake_max_id_until('294276-12-31 23:59:59.999999+00') < 9223372036854775807,
		         snowflake_min_id('294276-12-31 23:59:59.999+00') > 0}),
	't|t|t|t', 'bound functions at and past the end of timestamptz');

# Time conditions: the rows of the plain filter, from the index; the error
# of the plain filter when the index returns an id without a timestamptz.
query(q{CREATE TABLE w (id bigint PRIMARY KEY);
        INSERT INTO w SELECT snowflake_min_id(timestamptz '2026-01-01+00' + g * interval '1 hour')
                      FROM generate_series(0, 999) g;
        ANALYZE w});
my $window = q{SELECT count(*) FROM w WHERE snowflake_timestamp(id) >= '2026-01-10+00'
               AND snowflake_timestamp(id) < '2026-01-11+00'};
like(query("EXPLAIN (COSTS OFF) $window"), qr/Index Cond: \(\(id >= /, 'a window reads the index');
is(query($window), '24', 'the rows of the window');
is(query("SET snowflake.time_predicates = off; $window"), '24', 'the plain filter agrees');
query("INSERT INTO w VALUES ($max)");
my $since = q{SELECT count(*) FROM w WHERE snowflake_timestamp(id) >= '2026-01-10+00'};
for my $setting ('on', 'off')
{
	my ($rc, $out, $err) =
	  $node->psql('postgres', "SET snowflake.time_predicates = $setting; $since");
	like($err, qr/timestamp out of range/,
		"time_predicates $setting: the id without a timestamptz raises the filter's error");
}

# Partitions by time.
query(q{CREATE TABLE p (id bigint NOT NULL, PRIMARY KEY (id)) PARTITION BY RANGE (id)});
is(query(q{SELECT count(*) FROM snowflake_create_partitions('p', '2026-01-01+00', '2026-04-01+00', '1 month')}),
	'3', 'three monthly partitions');
query(q{INSERT INTO p SELECT id FROM w WHERE id < 9223372036854775807});
like(query(q{EXPLAIN (COSTS OFF) SELECT count(*) FROM p WHERE snowflake_timestamp(id) >= '2026-01-10+00'
             AND snowflake_timestamp(id) < '2026-01-11+00'}),
	qr/on p_2026_01 p\n/, 'a window is pruned to its partition');

$node->stop;
done_testing();
