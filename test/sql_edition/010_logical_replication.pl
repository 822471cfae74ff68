# Logical replication cannot give a node another node's identity (SQL
# edition, plain script): two databases on two servers, each configured
# with its own worker, replicate FOR ALL TABLES, one way (and both ways
# where PostgreSQL has origin = none, 16 and later).  A change of the
# publisher's configuration reaches the subscriber's apply worker, which
# refuses to write snowflake_sql_config and says why; the subscriber keeps
# its identity, and its ids carry its own worker only, each above the last.
# Before issue 35, the apply worker wrote the row (replication fires no
# ordinary trigger), and the subscriber's next bake took the publisher's
# identity.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use lib "$FindBin::RealBin/../t";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest qw(decode_id start_node);
use SqlEditionTest;

my %node;
for my $name ('pub', 'sub')
{
	my $n = plain_node("repl_$name");
	$n->append_conf('postgresql.conf', "wal_level = logical\nmax_replication_slots = 4\n"
		  . "max_wal_senders = 4\nwal_retrieve_retry_interval = '200ms'\n");
	start_node($n);
	add_role($n, 'owner1');
	$n->safe_psql('postgres', 'CREATE DATABASE app');
	$n->safe_psql('app', 'CREATE SCHEMA ids AUTHORIZATION owner1');
	install_plain($n, 'app', 'owner1', 'ids');
	$n->safe_psql('app', 'CREATE TABLE public.items (id bigint PRIMARY KEY, what text)');
	$node{$name} = $n;
}
my ($pub, $sub) = @node{ 'pub', 'sub' };
safe_psql_as($pub, 'app', 'owner1', 'SELECT ids.snowflake_configure(worker_id => 4)');
# (A configuration rolled back first: the mark it wrote is not the node's.)
safe_psql_as($sub, 'app', 'owner1',
	'BEGIN; SELECT ids.snowflake_configure(worker_id => 5); ROLLBACK');
safe_psql_as($sub, 'app', 'owner1', 'SELECT ids.snowflake_configure(worker_id => 5)');
is(mark_tag($sub), tag_of($sub),
	'a first configuration after one rolled back writes the node\'s own mark');
my $version = $pub->safe_psql('postgres', 'SHOW server_version_num');
my $both = $version >= 160000;
my $sequences = $version >= 190000;    # FOR ALL SEQUENCES

# FOR ALL TABLES: snowflake_sql_config is published too (and from 19 on,
# with ALL SEQUENCES, every logged sequence: snowflake_sql_mark; the counter
# and the bound are unlogged, which it leaves out).  No initial copy (the
# configuration's row would collide with the subscriber's own anyway).
sub subscribe
{
	my ($from, $to, $name) = @_;
	$from->safe_psql('app',
		"CREATE PUBLICATION $name FOR ALL TABLES" . ($sequences ? ', ALL SEQUENCES' : ''));
	$to->safe_psql('app',
		"CREATE SUBSCRIPTION $name CONNECTION '" . $from->connstr . " dbname=app"
		  . "' PUBLICATION $name WITH (copy_data = false"
		  . ($both ? ', origin = none' : '') . ')');
}
# The node's mark tag, and the tag in its mark now.
sub tag_of
{
	my ($n) = @_;
	return $n->safe_psql('app', 'SELECT mark_tag FROM ids.snowflake_sql_config');
}
sub mark_tag
{
	my ($n) = @_;
	return $n->safe_psql('app', "SELECT pg_sequence_last_value('ids.snowflake_sql_mark') & 65535");
}

sub mark_ms
{
	my ($n) = @_;
	return $n->safe_psql('app', "SELECT pg_sequence_last_value('ids.snowflake_sql_mark') >> 16");
}

# The tag is not set by hand; different tags (random: one chance in 65,535
# of the same; a new identity draws another).
my ($rc, $out, $err) = psql_as($sub, 'app', 'owner1',
	'UPDATE ids.snowflake_sql_config SET mark_tag = mark_tag % 65535 + 1');
like($err, qr/ERROR:  mark_tag cannot be set/, 'an UPDATE of mark_tag is refused');
($rc, $out, $err) = psql_as($sub, 'app', 'owner1', 'UPDATE ids.snowflake_sql_config SET mark_tag = 65536');
like($err, qr/ERROR:  invalid mark_tag: 65536\nDETAIL:  Valid values are 1 to 65535\./,
	'... and a value out of range, as such');
while (tag_of($pub) eq tag_of($sub))
{
	safe_psql_as($sub, 'app', 'owner1', 'SELECT ids.snowflake_configure(worker_id => 8)');
	safe_psql_as($sub, 'app', 'owner1', 'SELECT ids.snowflake_configure(worker_id => 5)');
}

# 2,000 ids of the subscriber: its own worker's only, each above the last
# it made before.  Returns the last.
sub own_ids_increasing
{
	my ($when, $last) = @_;
	my @ids = split /\n/, safe_psql_as($sub, 'app', 'owner1',
		'SELECT ids.snowflake_nextval() FROM generate_series(1, 2000)');
	is(scalar(grep { decode_id($_)->{worker_id} != 5 } @ids), 0,
		"$when, every id the subscriber makes carries its own worker");
	ok(increasing($last, @ids), '... each above the last it made before');
	return $ids[-1];
}

subscribe($pub, $sub, 'p2s');
subscribe($sub, $pub, 's2p') if $both;
$pub->wait_for_catchup('p2s');
$sub->wait_for_catchup('s2p') if $both;

# Rows replicate; then the publisher changes its configuration.
$pub->safe_psql('app', "INSERT INTO public.items SELECT ids.snowflake_nextval(), 'pub' FROM generate_series(1, 100)");
$pub->wait_for_catchup('p2s');
is($sub->safe_psql('app', "SELECT count(*) FROM public.items WHERE what = 'pub'"), '100',
	'the subscriber receives the publisher\'s rows');
my $last_sub = safe_psql_as($sub, 'app', 'owner1', 'SELECT ids.snowflake_nextval()');
if ($sequences)
{
	# The publisher's sequences, synchronised into the subscriber.
	safe_psql_as($pub, 'app', 'owner1', 'SELECT count(ids.snowflake_nextval()) FROM generate_series(1, 20000)');
	$sub->safe_psql('app', 'ALTER SUBSCRIPTION p2s REFRESH SEQUENCES');
	$sub->poll_query_until('app',
		"SELECT count(*) = 0 FROM pg_subscription_rel WHERE srsubstate <> 'r'")
	  or die 'the sequences were never synchronised';
	is($sub->safe_psql('app',
			"SELECT string_agg(c.relname, ',' ORDER BY c.relname) FROM pg_subscription_rel r "
			  . "JOIN pg_class c ON c.oid = r.srrelid WHERE c.relkind = 'S' "
			  . "AND c.relnamespace = 'ids'::regnamespace"),
		'snowflake_sql_layout,snowflake_sql_mark',
		'of the edition\'s sequences, the logged ones are replicated, not the unlogged counter and bound');
	is(mark_tag($sub), tag_of($pub),
		'REFRESH SEQUENCES wrote the publisher\'s mark, with its tag, into the subscriber');
	$last_sub = own_ids_increasing('after REFRESH SEQUENCES', $last_sub);
	is(mark_tag($sub), tag_of($sub), '... and the next region wrote the subscriber\'s own mark back');
}
my $log_offset = -s $sub->logfile;
safe_psql_as($pub, 'app', 'owner1', 'SELECT ids.snowflake_configure(worker_id => 6)');
ok($sub->wait_for_log(qr/snowflake_sql_config is not written with session_replication_role = replica/,
		$log_offset),
	'the subscriber\'s apply worker refuses the publisher\'s configuration');
like(slurp_file($sub->logfile, $log_offset), qr/HINT:  Leave snowflake_sql_config out of publications/,
	'... and says what to do');
is($sub->safe_psql('app', 'SELECT worker_id FROM ids.snowflake_sql_config'), '5',
	'the subscriber keeps its configuration');
$last_sub = own_ids_increasing('after the refusal', $last_sub);
if ($both)
{
	is($pub->safe_psql('app', 'SELECT worker_id FROM ids.snowflake_sql_config'), '6',
		'both ways: the publisher keeps its own too');
}

# The publisher's mark written into the subscriber's (REFRESH SEQUENCES on
# 19; before 19, as a copy of its sequences writes it), then a crash: the
# subscriber does not know where its ids stopped, and says so; after
# snowflake_start_above its ids go on above the last.
if ($sequences)
{
	safe_psql_as($pub, 'app', 'owner1', 'SELECT count(ids.snowflake_nextval()) FROM generate_series(1, 1000)');
	$sub->safe_psql('app', 'ALTER SUBSCRIPTION p2s REFRESH SEQUENCES');
	$sub->poll_query_until('app',
		"SELECT count(*) = 0 FROM pg_subscription_rel WHERE srsubstate <> 'r'")
	  or die 'the sequences were never synchronised';
}
else
{
	my $theirs = $pub->safe_psql('app', "SELECT pg_sequence_last_value('ids.snowflake_sql_mark')");
	$sub->safe_psql('app', "SELECT setval('ids.snowflake_sql_mark', $theirs)");
}
is(mark_tag($sub), tag_of($pub), 'the subscriber\'s mark holds the publisher\'s');
# Flushed before the crash: a sequence's change takes no transaction id, so
# the synchronisation commits without a record that would flush its WAL
# (pg19/sql-edition failed once with the write lost in the crash: the
# subscriber then had its own mark back, and rightly made ids).
$sub->safe_psql('app', 'CHECKPOINT');
$sub->stop('immediate');
$sub->start;
($rc, $out, $err) = psql_as($sub, 'app', 'owner1', 'SELECT ids.snowflake_nextval()');
like($err, qr/the durable mark of this snowflake node was written by another database/,
	'after a crash, the subscriber refuses ids: its mark is another database\'s');
like($err,
	qr/HINT:  Leave the snowflake_sql_\* sequences out of publications, then run SELECT snowflake_start_above\(coalesce\(max\(id\), 0\)\)/,
	'... and says what to do');
is($sub->safe_psql('app', 'SELECT durable_mark IS NULL FROM ids.snowflake_status'), 't',
	'... and snowflake_status shows no durable mark');
# An identity change then: where the ids under the identity left stopped is
# not known either, so they are retired for ever.
safe_psql_as($sub, 'app', 'owner1', 'SELECT ids.snowflake_configure(worker_id => 7)');
is($sub->safe_psql('app',
		"SELECT retired_identity || ' ' || retired_until || ' ' || (identity_since IS NULL) "
		  . 'FROM ids.snowflake_status'),
	'0/5 infinity true', 'a new identity then retires the old one until infinity');
safe_psql_as($sub, 'app', 'owner1', 'SELECT ids.snowflake_configure(worker_id => 5)');
safe_psql_as($sub, 'app', 'owner1', "SELECT ids.snowflake_start_above($last_sub)");
$last_sub = own_ids_increasing('after snowflake_start_above', $last_sub);
is(mark_tag($sub), tag_of($sub), '... with the subscriber\'s own mark');

# A copy of the node (a restore, a template, a standby made a node of its
# own) has its tag until it takes an identity of its own.  A new identity
# draws a new tag and writes the node's mark with it at once: the mark of
# the database it was copied from (its old tag), replicated in, then reads
# as another database's.  Before, the tag stayed, and after a crash the node
# started again from the copied mark, below ids it had issued.
my ($old_tag, $old_ms) = (tag_of($sub), mark_ms($sub));
safe_psql_as($sub, 'app', 'owner1', 'SELECT ids.snowflake_configure(worker_id => 9)');
isnt(tag_of($sub), $old_tag, 'a new identity draws a new tag');
is(mark_tag($sub), tag_of($sub), '... and writes the node\'s mark with it');
cmp_ok(mark_ms($sub), '>=', $old_ms, '... at the same millisecond or later');
$sub->safe_psql('app', "SELECT setval('ids.snowflake_sql_mark', (1::bigint << 16) | $old_tag)");
$sub->stop('immediate');
$sub->start;
($rc, $out, $err) = psql_as($sub, 'app', 'owner1', 'SELECT ids.snowflake_nextval()');
like($err, qr/the durable mark of this snowflake node was written by another database/,
	'after a crash, a mark with the tag the node had before its identity changed is refused');
# snowflake_start_above with an id ahead of the clock (policy borrow, within
# its 10 s): every id after it is above it.
my $ahead = safe_psql_as($sub, 'app', 'owner1',
	"WITH a AS (SELECT ids.snowflake_min_id(clock_timestamp() + interval '3 s') x) "
	  . 'SELECT a.x FROM a, ids.snowflake_start_above(a.x)');
my $first = safe_psql_as($sub, 'app', 'owner1', 'SELECT ids.snowflake_nextval()');
cmp_ok($first, '>', $ahead, 'snowflake_start_above of an id ahead of the clock: the next id is above it');
is(decode_id($first)->{worker_id}, 9, '... and carries the node\'s worker');
cmp_ok(mark_ms($sub) + $SnowflakeTest::EPOCH_MS, '>', decode_id($ahead)->{unix_ms},
	'... and the mark is above its millisecond');
is(mark_tag($sub), tag_of($sub), '... with the node\'s own tag');
# An identity change rolled back: the mark it wrote stays (a sequence), with
# a tag the node does not have; the next region writes the node's own back
# (10,000 ids: more than one region, whose 4,096 ids the node may still be
# borrowing from after the start above).
safe_psql_as($sub, 'app', 'owner1', 'BEGIN; SELECT ids.snowflake_configure(worker_id => 10); ROLLBACK');
isnt(mark_tag($sub), tag_of($sub), 'an identity change rolled back leaves a mark of a tag the node has not');
is(safe_psql_as($sub, 'app', 'owner1',
		'SELECT count(DISTINCT x >> 12 & 31) || \' \' || max(x >> 12 & 31) '
		  . 'FROM (SELECT ids.snowflake_nextval() x FROM generate_series(1, 10000)) s'),
	'1 9', '... the node goes on making ids as worker 9');
is(mark_tag($sub), tag_of($sub), '... and writes its own mark back');

$sub->safe_psql('app', 'ALTER SUBSCRIPTION p2s DISABLE');
$pub->safe_psql('app', 'ALTER SUBSCRIPTION s2p DISABLE') if $both;
$pub->stop;
$sub->stop;
done_testing();
