# Hot standby (issue 6, item 3): a server in recovery refuses to generate ids
# (it shares its primary's node identity), while decoding and the other pure
# functions keep working; once promoted -- with the worker id changed first,
# as a clone that runs as an independent primary must -- it generates ids
# that decode to its own worker id and lie above every id of its old primary.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

my $primary = PostgreSQL::Test::Cluster->new('hs_primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', <<'EOC');
shared_preload_libraries = 'snowflake'
snowflake.datacenter_id = 3
snowflake.worker_id = 5
include_if_exists 'snowflake_case.conf'
EOC
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$primary->safe_psql('postgres', 'CREATE TABLE made(id bigint PRIMARY KEY)');
$primary->backup('hs');

# The standby's configuration is the primary's (copied with the backup); only
# the worker id differs, set before it ever runs as a primary.
my $standby = PostgreSQL::Test::Cluster->new('hs_standby');
$standby->init_from_backup($primary, 'hs', has_streaming => 1);
set_case($standby, 'snowflake.worker_id = 6');
$standby->start;

$primary->safe_psql('postgres', 'INSERT INTO made SELECT snowflake_generate(1000)');
my $primary_id = $primary->safe_psql('postgres', 'SELECT max(id) FROM made');
$primary->wait_for_catchup($standby);

is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 't', 'standby is in recovery');
is($standby->safe_psql('postgres', 'SELECT max(id) FROM made'), $primary_id,
	"the primary's ids are replicated");

# Generating: an ERROR with SQLSTATE 25006 (read_only_sql_transaction).
foreach my $call ('snowflake_nextval()', 'snowflake_generate(3)')
{
	my ($ret, $out, $err) =
	  $standby->psql('postgres', "\\set VERBOSITY verbose\nSELECT $call");
	isnt($ret, 0, "$call fails on the standby");
	like($err, qr/ERROR:  25006: cannot generate snowflake ids during recovery/,
		"$call: SQLSTATE 25006 and the recovery message");
	like($err, qr/DETAIL:  A standby shares its primary's node identity/,
		"$call: DETAIL says why");
	is($out, '', "$call: no id returned");
}

# The pure functions work.
is( $standby->safe_psql('postgres',
		"SELECT datacenter_id || '/' || worker_id FROM snowflake_parse($primary_id)"),
	'3/5', "snowflake_parse decodes the primary's id on the standby");
my $d = decode_id($primary_id);
is($standby->safe_psql('postgres', "SELECT unix_ms FROM snowflake_parse($primary_id)"),
	$d->{unix_ms}, 'snowflake_parse: timestamp as the layout says');
is( $standby->safe_psql('postgres',
		'SELECT datacenter_id, worker_id, ids_issued FROM snowflake_status'),
	'3|6|0', 'snowflake_status works on the standby (own identity, nothing issued)');

# Functions of later extension versions, if installed.
my %has = map { $_ => 1 } split /\n/, $standby->safe_psql('postgres',
	"SELECT p.proname FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
	  JOIN pg_extension e ON e.oid = d.refobjid WHERE e.extname = 'snowflake'");
if ($has{snowflake_timestamp})
{
	is( $standby->safe_psql('postgres',
			"SELECT snowflake_timestamp($primary_id) = (snowflake_parse($primary_id)).ts"),
		't', 'snowflake_timestamp works on the standby');
}
if ($has{snowflake_encode} && $has{snowflake_decode})
{
	is( $standby->safe_psql('postgres',
			"SELECT snowflake_decode(snowflake_encode($primary_id))"),
		$primary_id, 'snowflake_encode/decode round trip on the standby');
}

# A session opened during recovery: refused now, served after promotion.
my $session = $standby->background_psql('postgres', on_error_stop => 0);
my ($o, $failed) = $session->query('SELECT snowflake_nextval()');
ok($failed, 'a session opened during recovery is refused');
like($session->{stderr}, qr/cannot generate snowflake ids during recovery/,
	'... with the recovery message');
$session->{stderr} = '';

# Promotion, the old primary stopped first.
$primary->stop('fast');
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'standby not promoted';

my @ids = split /\n/, $standby->safe_psql('postgres',
	'SELECT snowflake_nextval() UNION ALL SELECT * FROM snowflake_generate(1000)');
is(scalar(@ids), 1001, 'after promotion: nextval and generate work');
my @wrong = grep { decode_id($_)->{worker_id} != 6 || decode_id($_)->{datacenter_id} != 3 } @ids;
is(scalar(@wrong), 0, 'every new id decodes to datacenter 3, worker 6 (the standby\'s own)');
is( $standby->safe_psql('postgres',
		"SELECT count(*) FROM snowflake_generate(100) g WHERE (snowflake_parse(g)).worker_id <> 6"),
	'0', '... also as snowflake_parse sees it');
my @low = grep { $_ <= $primary_id } @ids;
is(scalar(@low), 0, "every new id is above the old primary's ids");
$standby->safe_psql('postgres', 'INSERT INTO made SELECT snowflake_generate(1000)');
is($standby->safe_psql('postgres', 'SELECT count(*) FROM made'), '2000',
	'the promoted node inserts its ids next to the old ones without a conflict');

($o, $failed) = $session->query('SELECT (snowflake_parse(snowflake_nextval())).worker_id');
ok(!$failed, 'the session opened during recovery generates after promotion');
is($o, '6', '... with the new worker id');
$session->quit;

$standby->stop;
done_testing();
