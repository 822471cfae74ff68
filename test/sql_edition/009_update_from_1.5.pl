# The SQL edition as released in 1.5 (test/sql_edition/released-1.5, built
# with its own build.sh), installed both ways on a managed server by a role
# that is not a superuser, makes ids (running ahead of the clock, as
# snowflake_start_above or policy borrow make it), then is updated to the
# current version (dist/: the plain script run again; pg_tle's ALTER
# EXTENSION snowflake_sql UPDATE).  After the update, in each database:
#   - the ids go on above every id issued before, none twice, the table's
#     DEFAULT included;
#   - the counter and the bound are unlogged, the durable mark is above every
#     id issued before, and so, after a crash (which resets the unlogged
#     sequences), the ids still go on above them;
#   - PUBLIC no longer counts (1.5 granted it the counter), and the grants
#     docs/managed.md shows let another role make ids.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use lib "$FindBin::RealBin/../t";
use File::Path qw(make_path);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest qw(decode_id start_node max);
use SqlEditionTest;

my $node = managed_node('update15');
start_node($node);
my %worker = (tle => 11, plain => 12);
$node->safe_psql('postgres', "CREATE DATABASE $_") for sort keys %worker;
$node->safe_psql('tle', 'CREATE EXTENSION pg_tle');
add_role($node, 'app_owner', 'GRANT pgtle_admin TO app_owner');
add_role($node, 'app');
$node->safe_psql($_, 'CREATE SCHEMA ids AUTHORIZATION app_owner; GRANT USAGE ON SCHEMA ids TO app')
  for sort keys %worker;

# 1.5's two files, made by 1.5's build.sh from 1.5's source.
my $v15 = $node->basedir . '/v15';
make_path($v15);
my $made = `sh '$FindBin::RealBin/released-1.5/build.sh' '$v15' 1.5 2>&1`;
is($?, 0, 'the released 1.5 builds') or diag $made;

install_pg_tle($node, 'tle', 'app_owner', 'ids', "$v15/snowflake_sql_pg_tle.sql");
install_plain($node, 'plain', 'app_owner', 'ids', "$v15/snowflake_sql.sql");

my (%old, %max);
for my $db (sort keys %worker)
{
	is(safe_psql_as($node, $db, 'app_owner', 'SELECT ids.snowflake_sql_version()'), '1.5', "$db: 1.5 installed");
	safe_psql_as($node, $db, 'app_owner', "SELECT ids.snowflake_configure(worker_id => $worker{$db})");
	# Ids 5 s ahead of the clock: what a node that borrowed, or was started
	# above a later id, has issued.
	my $ahead = safe_psql_as($node, $db, 'app_owner', <<'EOS');
SELECT ids.snowflake_start_above(ids.snowflake_nextval() + (5000::bigint << 22));
CREATE TABLE ids.orders (id bigint PRIMARY KEY DEFAULT ids.snowflake_nextval(), item text);
INSERT INTO ids.orders (item) SELECT 'before' FROM generate_series(1, 500);
EOS
	my @ids = split /\n/, safe_psql_as($node, $db, 'app_owner',
		'SELECT ids.snowflake_nextval() FROM generate_series(1, 3000)');
	push @ids, split /\n/, safe_psql_as($node, $db, 'app_owner', 'SELECT id FROM ids.orders ORDER BY id');
	$old{$db} = \@ids;
	$max{$db} = max(@ids);
	cmp_ok(decode_id($max{$db})->{unix_ms} - time * 1000, '>', 3000, "$db: 1.5 issued ids ahead of the clock");
	# 1.5 let every role count.
	like(safe_psql_as($node, $db, 'app', 'SELECT ids.snowflake_nextval()'), qr/^\d+$/,
		"$db: under 1.5 a role without grants makes ids");
}

# ---- the update ----------------------------------------------------------------
my ($current) = slurp_file(SnowflakeTest::tree_root() . '/snowflake.control') =~ /^default_version = '([^']+)'/m;
SqlEditionTest::run_file_as($node, 'tle', 'app_owner', dist_file('snowflake_sql_pg_tle.sql'));
is(safe_psql_as($node, 'tle', 'app_owner',
		"ALTER EXTENSION snowflake_sql UPDATE; SELECT extversion FROM pg_extension WHERE extname = 'snowflake_sql'"),
	$current, "tle: ALTER EXTENSION snowflake_sql UPDATE, by its owner, to $current");
install_plain($node, 'plain', 'app_owner', 'ids');

sub check_ids
{
	my ($db, $what, $before, @new) = @_;
	my %seen = map { $_ => 1 } @$before;
	ok(increasing(@new) && $new[0] > max(@$before), "$db: $what: ids go on above every id issued before")
	  or diag "first new $new[0], highest before " . max(@$before);
	is(scalar(grep { $seen{$_} } @new), 0, "$db: $what: none issued twice");
	is(decode_id($new[-1])->{worker_id}, $worker{$db}, "$db: $what: under the node's identity");
}

for my $db (sort keys %worker)
{
	is(safe_psql_as($node, $db, 'app_owner', 'SELECT ids.snowflake_sql_version()'), $current,
		"$db: updated to $current");
	is(safe_psql_as($node, $db, 'app_owner',
			"SELECT string_agg(relname || ' ' || relpersistence::text, ', ' ORDER BY relname) FROM pg_class
			 WHERE relnamespace = 'ids'::regnamespace
			   AND relname IN ('snowflake_sql_counter', 'snowflake_sql_bound', 'snowflake_sql_mark')"),
		'snowflake_sql_bound u, snowflake_sql_counter u, snowflake_sql_mark p',
		"$db: the counter and the bound are unlogged, the mark logged");
	cmp_ok(safe_psql_as($node, $db, 'app_owner', "SELECT pg_sequence_last_value('ids.snowflake_sql_mark') >> 16"),
		'>', $max{$db} >> 22, "$db: the mark is above every id issued before");
	my @new = split /\n/, safe_psql_as($node, $db, 'app_owner',
		"SELECT ids.snowflake_nextval() FROM generate_series(1, 3000);
		 INSERT INTO ids.orders (item) SELECT 'after' FROM generate_series(1, 500) RETURNING id");
	check_ids($db, 'after the update', $old{$db}, @new);
	push @{ $old{$db} }, @new;

	my ($ret, $out, $err) = psql_as($node, $db, 'app', 'SELECT ids.snowflake_nextval()');
	like($err // '', qr/permission denied for (sequence snowflake_sql_counter|function snowflake_sql_next_slow)/,
		"$db: after the update a role without grants makes no ids");
	safe_psql_as($node, $db, 'app_owner', doc_block('app-grants.sql'));
	@new = split /\n/, safe_psql_as($node, $db, 'app', 'SELECT ids.snowflake_nextval() FROM generate_series(1, 100)');
	check_ids($db, 'another role with the documented grants', $old{$db}, @new);
	push @{ $old{$db} }, @new;
}

# ---- a crash resets the unlogged counter and bound: the mark holds -------------
$node->stop('immediate');
$node->start;
for my $db (sort keys %worker)
{
	is(safe_psql_as($node, $db, 'app_owner', "SELECT pg_sequence_last_value('ids.snowflake_sql_bound')"), '',
		"$db: the crash reset the bound");
	my @new = split /\n/, safe_psql_as($node, $db, 'app', 'SELECT ids.snowflake_nextval() FROM generate_series(1, 1000)');
	check_ids($db, 'after a crash', $old{$db}, @new);
	push @{ $old{$db} }, @new;
	# The identity history: unknown from 1.5; on a change, retired_until
	# covers every id under the identity left, those made ahead included.
	is(safe_psql_as($node, $db, 'app_owner', 'SELECT identity_since IS NULL FROM ids.snowflake_status'), 't',
		"$db: identity_since unknown after the update from 1.5");
	my $w = $worker{$db} + 10;
	my $st = safe_psql_as($node, $db, 'app_owner',
		"SELECT ids.snowflake_configure(worker_id => $w);
		 SELECT retired_identity, (extract(epoch FROM retired_until) * 1000)::bigint FROM ids.snowflake_status");
	my ($retired, $until) = split /\|/, (split /\n/, $st)[-1];
	is($retired, "0/$worker{$db}", "$db: another identity: the one left is retired");
	cmp_ok($until, '>=', decode_id(max(@{ $old{$db} }))->{unix_ms}, "$db: ... until the time of its last id");
}

$node->stop;
done_testing();
