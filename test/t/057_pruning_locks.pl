# A time window on a partitioned table locks and opens only the partitions
# that can hold its rows, as the same window written as literal id bounds
# does: PostgreSQL's own plan-time pruning reads the bounds the condition
# implies before the partitions are expanded.  1,000 hourly partitions
# (snowflake_create_partitions), a one-hour window in the natural form, as
# a constant range with <@, and as literal id bounds: the relation locks the
# transaction holds after running it (pg_locks) are within 4 of the literal
# bounds' count, and the rows are the plain filter's.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

my $node = new_node('pruning_locks');
# Creating 1,000 partitions in one transaction takes about 3,000 locks.
$node->append_conf('postgresql.conf', 'max_locks_per_transaction = 256');
$node->start;
my $start = '2026-01-01 00:00:00+00';
$node->safe_psql('postgres', qq{
CREATE EXTENSION snowflake;
CREATE TABLE ev (id bigint NOT NULL, PRIMARY KEY (id)) PARTITION BY RANGE (id);
SELECT count(*) FROM snowflake_create_partitions('ev', '$start', timestamptz '$start' + interval '1000 hours', '1 hour');
INSERT INTO ev SELECT snowflake_min_id(timestamptz '$start' + g * interval '10 min') + g % 7 FROM generate_series(0, 5999) g;
ANALYZE ev;
});
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_inherits WHERE inhparent = 'ev'::regclass}),
	'1000', '1,000 partitions');

my $t0 = "timestamptz '$start' + interval '500 hours'";
my $t1 = "timestamptz '$start' + interval '501 hours'";
my ($lo, $hi) = split /\|/, $node->safe_psql('postgres',
	"SELECT snowflake_min_id_since($t0), snowflake_max_id_before($t1)");
my %forms = (
	literal => "SELECT count(*) FROM ev WHERE id >= $lo AND id <= $hi",
	natural => "SELECT count(*) FROM ev WHERE snowflake_timestamp(id) >= '2026-01-21 20:00:00+00'"
	  . " AND snowflake_timestamp(id) < '2026-01-21 21:00:00+00'",
	range => "SELECT count(*) FROM ev WHERE id <@ tstzrange('2026-01-21 20:00:00+00', '2026-01-21 21:00:00+00')",);

# The query's rows and the relation locks its transaction holds afterwards.
sub rows_and_locks
{
	my ($query, $setting) = @_;
	my $out = $node->safe_psql('postgres', qq{
SET snowflake.time_predicates = $setting;
BEGIN;
$query;
SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'relation';
COMMIT;});
	return split /\n/, $out;
}

my ($literal_rows, $literal_locks) = rows_and_locks($forms{literal}, 'on');
is($literal_rows, '6', 'the literal bounds: the rows of one hour');
cmp_ok($literal_locks, '<=', 6, "the literal bounds: $literal_locks relation locks");
foreach my $form ('natural', 'range')
{
	my ($rows, $locks) = rows_and_locks($forms{$form}, 'on');
	my ($off_rows) = rows_and_locks($forms{$form}, 'off');
	is($rows, $off_rows, "$form: the rows of the plain filter");
	is($rows, $literal_rows, "$form: the rows of the literal bounds");
	cmp_ok($locks, '<=', $literal_locks + 4,
		"$form: $locks relation locks, within 4 of the literal bounds' $literal_locks");
	like($node->safe_psql('postgres', "EXPLAIN (COSTS OFF) $forms{$form}"),
		qr/on ev_2026_01_21_20 ev\n/, "$form: the plan scans the one partition");
}

$node->stop;
done_testing();
