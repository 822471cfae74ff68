# Snowflake ids on Citus distributed tables: a coordinator and two workers
# (Citus 14, metadata on every node), each with its own configured identity.
#
# Where Citus evaluates DEFAULT snowflake_nextval(), pinned per statement:
#   - INSERT ... VALUES, COPY, prepared statements sent to the coordinator:
#     the coordinator (before routing; also for a table distributed by the
#     id itself);
#   - the same sent to a worker (MX): that worker;
#   - INSERT ... SELECT whose SELECT reads a distributed table, whatever
#     Citus's method (with a volatile default Citus does not push the
#     statement down: it repartitions, or pulls to the coordinator): the node
#     that holds the source row's shard, which evaluates the default in its
#     part of the SELECT;
# and for every row of every table: its id is distinct from every other,
# decodes to the node that made it, and the row lies in the shard Citus's
# own lookup (get_shard_id_for_distribution_column) gives for it, on the node
# Citus's catalog places that shard.  Reference tables: every copy holds the
# same ids.
#
# Also: RETURNING with the IMMUTABLE five-argument snowflake_parse works on
# distributed tables and the STABLE one is refused; what Citus refuses
# (UPDATE ... SET id = snowflake_nextval(), ON CONFLICT DO UPDATE SET id =
# snowflake_nextval()) is pinned; ADD COLUMN ... DEFAULT snowflake_nextval()
# on a replicated table with rows is refused, and the backfill path its hint
# gives keeps the copies equal; snowflake_cluster_check() reports a healthy
# cluster, a duplicate identity, a missing one, an epoch mismatch and a node
# that does not answer.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use lib "$FindBin::RealBin/../t";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CitusTest;
use SnowflakeTest qw(decode_id);

# Identities: datacenter 3, workers 7 (coordinator), 8 and 9.
my $coord = citus_node('coord', 'snowflake.datacenter_id = 3', 'snowflake.worker_id = 7');
my $w1 = citus_node('worker1', 'snowflake.datacenter_id = 3', 'snowflake.worker_id = 8');
my $w2 = citus_node('worker2', 'snowflake.datacenter_id = 3', 'snowflake.worker_id = 9');
join_cluster($coord, $w1, $w2);
$coord->safe_psql('postgres', 'CREATE EXTENSION snowflake');

my %node_by_port = map { $_->port => $_ } ($coord, $w1, $w2);
my %identity = ($coord->port => '3/7', $w1->port => '3/8', $w2->port => '3/9');
my %label = ($coord->port => 'coordinator', $w1->port => 'worker1', $w2->port => 'worker2');

# ---- the cluster check, healthy -------------------------------------------
sub check_rows
{
	return query_rows($coord, <<'EOS');
SELECT node_port, group_id, datacenter_id, worker_id, layout, extension_version,
       coalesce(problem, 'ok'), coalesce(detail, '')
FROM snowflake_cluster_check() ORDER BY group_id, problem
EOS
}
{
	my @rows = check_rows();
	is(scalar(@rows), 3, 'cluster check: one row per node');
	my $ok = grep { $_->[6] eq 'ok' } @rows;
	is($ok, 3, 'cluster check: no problem on a healthy cluster');
	is(join(',', map { "$_->[1]:$_->[2]/$_->[3]" } @rows), '0:3/7,1:3/8,2:3/9',
		'cluster check: each node with its Citus group and identity');
	# The version each node has installed: the default, whichever it is.
	my $v = $coord->safe_psql('postgres',
		"SELECT default_version FROM pg_available_extensions WHERE name = 'snowflake'");
	is(join(',', map { "$_->[4] $_->[5]" } @rows), join(',', ("5/5/12 $v") x 3),
		'cluster check: layout and extension version of each node');
}

# ---- tables ---------------------------------------------------------------
$coord->safe_psql('postgres', <<'EOS');
CREATE TABLE events (id bigint NOT NULL DEFAULT snowflake_nextval(), tenant int NOT NULL,
                     src text NOT NULL, PRIMARY KEY (tenant, id));
SELECT create_distributed_table('events', 'tenant', shard_count => 8);
CREATE TABLE events_copy (id bigint NOT NULL DEFAULT snowflake_nextval(), tenant int NOT NULL,
                          src text NOT NULL, PRIMARY KEY (tenant, id));
SELECT create_distributed_table('events_copy', 'tenant', colocate_with => 'events');
CREATE TABLE by_id (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), tenant int NOT NULL,
                    src text NOT NULL);
SELECT create_distributed_table('by_id', 'id', shard_count => 8);
CREATE TABLE ref (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), tenant int NOT NULL,
                  src text NOT NULL);
SELECT create_reference_table('ref');
EOS

# ---- loads, each labelled (src) with the statement shape ------------------
# Through the coordinator.
$coord->safe_psql('postgres', <<'EOS');
INSERT INTO events (tenant, src) SELECT g % 40, 'coord-values' FROM generate_series(1, 2000) g;
INSERT INTO by_id (tenant, src) SELECT g % 40, 'coord-values' FROM generate_series(1, 1000) g;
INSERT INTO ref (tenant, src) SELECT g % 40, 'coord-values' FROM generate_series(1, 300) g;
EOS
{
	my $copy = join('', map { ($_ % 40) . "\tcoord-copy\n" } 1 .. 2000);
	$coord->safe_psql('postgres', "COPY events (tenant, src) FROM STDIN;\n$copy\\.\n");
	$coord->safe_psql('postgres', "COPY by_id (tenant, src) FROM STDIN;\n$copy\\.\n");
	$coord->safe_psql('postgres', "COPY ref (tenant, src) FROM STDIN;\n"
		  . join('', map { ($_ % 40) . "\tcoord-copy\n" } 1 .. 200) . "\\.\n");
}
# Prepared statements past Citus's plan caching (after 5 executions a
# generic plan): each execution still takes a new id.
{
	my $sql = "PREPARE ev(int) AS INSERT INTO events (tenant, src) VALUES (\$1, 'coord-prepared');\n"
	  . "PREPARE bi(int) AS INSERT INTO by_id (tenant, src) VALUES (\$1, 'coord-prepared');\n"
	  . "PREPARE rf(int) AS INSERT INTO ref (tenant, src) VALUES (\$1, 'coord-prepared');\n";
	$sql .= "EXECUTE ev($_); EXECUTE bi($_); EXECUTE rf($_);\n" for map { $_ % 5 } 1 .. 12;
	$coord->safe_psql('postgres', $sql);
}
# Directly on each worker (Citus MX): the receiving node's identity.
for my $w ($w1, $w2)
{
	my $src = 'mx-' . $label{ $w->port };
	$w->safe_psql('postgres', <<"EOS");
INSERT INTO events (tenant, src) SELECT g % 40, '$src' FROM generate_series(1, 500) g;
INSERT INTO by_id (tenant, src) SELECT g % 40, '$src' FROM generate_series(1, 500) g;
INSERT INTO ref (tenant, src) SELECT g % 40, '$src' FROM generate_series(1, 100) g;
COPY events (tenant, src) FROM STDIN;
1\t$src
2\t$src
\\.
PREPARE ev(int) AS INSERT INTO events (tenant, src) VALUES (\$1, '$src');
EXECUTE ev(1); EXECUTE ev(2); EXECUTE ev(3); EXECUTE ev(4); EXECUTE ev(5); EXECUTE ev(6); EXECUTE ev(7);
EOS
}
# INSERT ... SELECT from a distributed table, the ways Citus plans it:
# repartitioned by the target's distribution column (also into a colocated
# table: the volatile default keeps Citus from pushing it down), and pulled
# to the coordinator (a LIMIT, and a reference table as target).
{
	my $plans = $coord->safe_psql('postgres', <<'EOS');
EXPLAIN (COSTS OFF) INSERT INTO events_copy (tenant, src) SELECT tenant, 'insert-select' FROM events;
EXPLAIN (COSTS OFF) INSERT INTO by_id (tenant, src) SELECT tenant, 'insert-select' FROM events;
EXPLAIN (COSTS OFF) INSERT INTO events_copy (tenant, src)
    SELECT tenant, 'insert-select-limit' FROM events ORDER BY tenant, id LIMIT 100;
EXPLAIN (COSTS OFF) INSERT INTO ref (tenant, src) SELECT tenant, 'insert-select' FROM events WHERE tenant < 10;
EOS
	my @methods = $plans =~ /INSERT\/SELECT method: ([a-z ]+)/g;
	note("INSERT ... SELECT methods: @methods");
	is(join(',', @methods), 'repartition,repartition,pull to coordinator,pull to coordinator',
		'INSERT ... SELECT: repartitioned, or pulled to the coordinator');
	$coord->safe_psql('postgres', <<'EOS');
INSERT INTO events_copy (tenant, src) SELECT tenant, 'insert-select' FROM events;
INSERT INTO by_id (tenant, src) SELECT tenant, 'insert-select' FROM events;
INSERT INTO events_copy (tenant, src)
    SELECT tenant, 'insert-select-limit' FROM events ORDER BY tenant, id LIMIT 100;
INSERT INTO ref (tenant, src) SELECT tenant, 'insert-select' FROM events WHERE tenant < 10;
EOS
}

# ---- RETURNING ------------------------------------------------------------
{
	my @r = query_rows($coord, <<'EOS');
INSERT INTO events (tenant, src) VALUES (1, 'coord-returning'), (2, 'coord-returning')
RETURNING id, (snowflake_parse(id, 1288834974657, 5, 5, 12)).datacenter_id,
          (snowflake_parse(id, 1288834974657, 5, 5, 12)).worker_id
EOS
	is(join(',', map { "$_->[1]/$_->[2]" } @r), '3/7,3/7',
		'RETURNING with the IMMUTABLE five-argument snowflake_parse on a distributed table');
	@r = query_rows($coord, <<'EOS');
INSERT INTO by_id (tenant, src) SELECT tenant, 'insert-select-returning' FROM events WHERE tenant IN (1, 2, 3)
RETURNING tenant, (snowflake_parse(id, 1288834974657, 5, 5, 12)).worker_id
EOS
	ok(scalar(@r) > 0, 'RETURNING of an INSERT ... SELECT decodes the ids the workers made');
	my $err = expect_error($coord,
		"INSERT INTO events (tenant, src) VALUES (1, 'x') RETURNING (snowflake_parse(id)).worker_id",
		'RETURNING with the STABLE snowflake_parse');
	like($err, qr/non-IMMUTABLE functions are not allowed in the RETURNING clause/,
		'Citus refuses the STABLE snowflake_parse in RETURNING');
}

# ---- what Citus refuses ---------------------------------------------------
{
	my $err = expect_error($coord, 'UPDATE events SET id = snowflake_nextval() WHERE tenant = 1',
		'UPDATE ... SET id = snowflake_nextval()');
	like($err, qr/functions used in UPDATE queries on distributed tables must not be VOLATILE/,
		'Citus refuses UPDATE ... SET id = snowflake_nextval() on a distributed table');
	$err = expect_error($coord, 'UPDATE by_id SET src = src || snowflake_nextval()::text',
		'UPDATE ... SET col = snowflake_nextval() on a table distributed by id');
	like($err, qr/must not be VOLATILE/, 'Citus refuses it on a table distributed by the id too');
	$err = expect_error($coord, 'UPDATE ref SET id = snowflake_nextval()',
		'UPDATE ... SET id = snowflake_nextval() on a reference table');
	like($err, qr/must not be VOLATILE/, 'Citus refuses it on a reference table');
	my $first = $coord->safe_psql('postgres', 'SELECT id FROM events WHERE tenant = 1 LIMIT 1');
	$err = expect_error($coord,
		"INSERT INTO events (tenant, id, src) VALUES (1, $first, 'x') "
		  . 'ON CONFLICT (tenant, id) DO UPDATE SET id = snowflake_nextval()',
		'ON CONFLICT DO UPDATE SET id = snowflake_nextval()');
	like($err,
		qr/functions used in the DO UPDATE SET clause of INSERTs on distributed tables must be marked IMMUTABLE/,
		'Citus refuses ON CONFLICT DO UPDATE SET id = snowflake_nextval()');
	my $some = $coord->safe_psql('postgres', 'SELECT min(id) FROM by_id');
	$err = expect_error($coord,
		"INSERT INTO by_id (id, tenant, src) VALUES ($some, 1, 'x') "
		  . 'ON CONFLICT (id) DO UPDATE SET id = snowflake_nextval()',
		'ON CONFLICT DO UPDATE SET id = snowflake_nextval() on a table distributed by id');
	like($err, qr/must be marked IMMUTABLE|modifying the partition value of rows is not allowed/,
		'Citus refuses it on a table distributed by the id');
}

# ---- every row: distinct id, its maker, its shard -------------------------
# The node that holds each shard of events (the source of INSERT ... SELECT).
my %events_shard_port = map { $_->[0] => $_->[2] } placements($coord, 'events');
my %tenant_port = map { $_->[0] => $events_shard_port{ $_->[1] } } query_rows($coord,
	"SELECT g, get_shard_id_for_distribution_column('events', g) FROM generate_series(0, 39) g");

my %seen;       # id -> table/src, over every table
my $dupes = 0;
# The maker a row's id must decode to, by the statement that made it.
sub expected_maker
{
	my ($table, $src, $tenant, $holder_port) = @_;
	return $identity{ $coord->port } if $src =~ /^coord-/;
	return $identity{ $w1->port } if $src eq 'mx-worker1';
	return $identity{ $w2->port } if $src eq 'mx-worker2';
	# INSERT ... SELECT: the node holding the source row's shard.
	return $identity{ $tenant_port{$tenant} } if $src =~ /^insert-select/;
	die "no rule for $table/$src";
}

# Reads every placement of a table on its node: the rows of the shard, each
# with Citus's shard for it.  Checks shard, maker and uniqueness; returns the
# row count per placement.
sub check_placements
{
	my ($table, $distcol) = @_;
	my ($rows, $misplaced, $wrong_maker) = (0, 0, 0);
	my %per_placement;
	for my $p (placements($coord, $table))
	{
		my ($shardid, $shard, $port) = @$p;
		my $node = $node_by_port{$port};
		my $lookup = defined $distcol
		  ? "get_shard_id_for_distribution_column('$table', $distcol)"
		  : "get_shard_id_for_distribution_column('$table')";
		my @r = query_rows($node, "SELECT id, src, tenant, $lookup FROM $shard");
		$per_placement{"$shardid\@$port"} = \@r;
		for my $row (@r)
		{
			my ($id, $src, $tenant, $lookup_shard) = @$row;
			$rows++;
			if ($lookup_shard != $shardid)
			{
				$misplaced++;
				diag("$table: id $id in shard $shardid, Citus says $lookup_shard");
			}
			my $d = decode_id($id);
			my $maker = "$d->{datacenter_id}/$d->{worker_id}";
			my $want = expected_maker($table, $src, $tenant, $port);
			if ($maker ne $want)
			{
				$wrong_maker++;
				diag("$table: id $id ($src, tenant $tenant) decodes to $maker, expected $want");
			}
		}
	}
	return ($rows, $misplaced, $wrong_maker, \%per_placement);
}

for my $t ([ 'events', 'tenant' ], [ 'events_copy', 'tenant' ], [ 'by_id', 'id' ])
{
	my ($table, $col) = @$t;
	my ($rows, $misplaced, $wrong_maker, $pp) = check_placements($table, $col);
	my $count = $coord->safe_psql('postgres', "SELECT count(*) FROM $table");
	is($rows, $count, "$table: the placements hold every row once ($count)");
	is($misplaced, 0, "$table: every row lies in the shard Citus looks up for it");
	is($wrong_maker, 0, "$table: every id decodes to the node that made it");
	for my $rs (values %$pp)
	{
		for my $row (@$rs)
		{
			$dupes++ if $seen{ $row->[0] }++;
		}
	}
	my @makers = query_rows($coord,
		"SELECT DISTINCT (snowflake_parse(id)).worker_id FROM $table ORDER BY 1");
	note("$table: ids made by workers " . join(',', map { $_->[0] } @makers));
}
{
	my ($rows, $misplaced, $wrong_maker, $pp) = check_placements('ref', undef);
	my @copies = values %$pp;
	is(scalar(@copies), 3, 'ref: a copy on each node');
	my @digests = map { join(',', sort map { "$_->[0]:$_->[1]" } @$_) } @copies;
	ok($digests[0] eq $digests[1] && $digests[1] eq $digests[2],
		'ref: every copy holds the same ids for the same rows');
	is($misplaced, 0, 'ref: every row in the reference shard');
	is($wrong_maker, 0, 'ref: every id decodes to the node that made it');
	for my $row (@{ $copies[0] })
	{
		$dupes++ if $seen{ $row->[0] }++;
	}
}
is($dupes, 0, 'no id appears twice, over every table (' . scalar(keys %seen) . ' ids)');
# Every statement shape made ids where expected (the rules above were used).
{
	my %makers = map { $_->[0] => $_->[1] } query_rows($coord, <<'EOS');
SELECT src, string_agg(DISTINCT (snowflake_parse(id)).worker_id::text, ','
                       ORDER BY (snowflake_parse(id)).worker_id::text)
FROM (SELECT id, src FROM events UNION ALL SELECT id, src FROM events_copy
      UNION ALL SELECT id, src FROM by_id UNION ALL SELECT id, src FROM ref) u
GROUP BY src
EOS
	is($makers{'coord-values'} . ';' . $makers{'coord-copy'} . ';' . $makers{'coord-prepared'},
		'7;7;7', 'INSERT, COPY and prepared statements via the coordinator: its identity');
	is($makers{'mx-worker1'} . ';' . $makers{'mx-worker2'}, '8;9',
		'statements sent to a worker: that worker\'s identity');
	is($makers{'insert-select'}, '8,9', 'INSERT ... SELECT: ids made on the workers');
	like($makers{'insert-select-limit'}, qr/^(8|9|8,9)$/,
		'INSERT ... SELECT pulled to the coordinator: ids still made on the workers');
}

# ---- no silent divergence: ADD COLUMN ... DEFAULT snowflake_nextval() -----
{
	my $err = expect_error($coord,
		'ALTER TABLE ref ADD COLUMN id2 bigint DEFAULT snowflake_nextval()',
		'ADD COLUMN ... DEFAULT snowflake_nextval() on a reference table with rows');
	like($err,
		qr/cannot add column id2 with DEFAULT snowflake_nextval\(\) to public\.ref: the table has rows and Citus keeps it in several copies/,
		'the refusal names the column and the table');
	my ($hint) = $err =~ /HINT:\s+(.*)/s;
	$hint //= '';
	$hint =~ s/\s+/ /g;
	my @steps =
	  $hint =~ /\((ALTER TABLE (?:[^()]|\(\))*|WITH new_ids AS MATERIALIZED \(.*?\) UPDATE [^()]*)\)/g;
	is(scalar(@steps), 3, 'the hint gives the backfill path in three statements')
	  or diag($hint);
	is($coord->safe_psql('postgres', 'SELECT count(*) FROM pg_attribute WHERE attrelid = \'ref\'::regclass AND attname = \'id2\''),
		'0', 'nothing was added');
	# ALTER COLUMN ... TYPE ... USING snowflake_nextval(): the same.
	$err = expect_error($coord, 'ALTER TABLE ref ALTER COLUMN tenant TYPE bigint USING snowflake_nextval()',
		'ALTER COLUMN ... TYPE ... USING snowflake_nextval() on a reference table with rows');
	like($err, qr/cannot rewrite column tenant of public\.ref USING snowflake_nextval\(\)/,
		'the rewrite is refused too');
	# Also in a transaction that changed the table first.
	$err = expect_error($coord,
		"BEGIN; ALTER TABLE ref ADD COLUMN note text; ALTER TABLE ref ADD COLUMN id3 bigint DEFAULT snowflake_nextval(); COMMIT;",
		'ADD COLUMN ... DEFAULT snowflake_nextval() after other DDL in the transaction');
	like($err, qr/cannot add column id3/, 'refused after other DDL in the same transaction');

	# The backfill path of the hint, statement by statement.
	$coord->safe_psql('postgres', "$_;") for @steps;
	my @copies = map { $_->[0] } run_on_placements('ref', 'SELECT string_agg(id::text || \':\' || id2::text, \',\' ORDER BY id) FROM %s');
	is(scalar(@copies), 3, 'backfill: three copies');
	ok($copies[0] ne '' && $copies[0] eq $copies[1] && $copies[1] eq $copies[2],
		'backfill: every copy holds the same new ids');
	is($coord->safe_psql('postgres',
			'SELECT count(*) = count(DISTINCT id2) AND count(id2) = count(*) FROM ref'),
		't', 'backfill: every row got a distinct id');
	$coord->safe_psql('postgres', "INSERT INTO ref (tenant, src) VALUES (1, 'coord-after-backfill')");
	is($coord->safe_psql('postgres',
			"SELECT id2 > (SELECT max(id2) FROM ref WHERE src <> 'coord-after-backfill') FROM ref WHERE src = 'coord-after-backfill'"),
		't', 'backfill: the default set at the end gives new rows new ids');

	# Allowed: an empty reference table, a distributed table kept in one copy
	# per shard (each placement fills its own rows under its node's identity),
	# a table Citus does not manage.
	$coord->safe_psql('postgres', <<'EOS');
CREATE TABLE ref_empty (a int); SELECT create_reference_table('ref_empty');
ALTER TABLE ref_empty ADD COLUMN id bigint DEFAULT snowflake_nextval();
ALTER TABLE events_copy ADD COLUMN id2 bigint DEFAULT snowflake_nextval();
CREATE TABLE plain (a int); INSERT INTO plain VALUES (1), (2);
ALTER TABLE plain ADD COLUMN id bigint DEFAULT snowflake_nextval();
EOS
	pass('ADD COLUMN ... DEFAULT snowflake_nextval(): accepted on an empty reference table, a single-copy distributed table and a local table');
	is($coord->safe_psql('postgres',
			'SELECT count(*) = count(DISTINCT id2) FROM events_copy'),
		't', 'single-copy distributed table: the filled ids are distinct');
	my @holders = query_rows($coord, <<'EOS');
SELECT DISTINCT p.nodeport, (snowflake_parse(e.id2)).worker_id
FROM events_copy e JOIN pg_dist_shard_placement p
  ON p.shardid = get_shard_id_for_distribution_column('events_copy', e.tenant)
EOS
	my $wrong = grep { $identity{ $_->[0] } ne "3/$_->[1]" } @holders;
	is($wrong, 0, 'single-copy distributed table: each shard filled under its holder\'s identity');

	# A distributed table with two copies of each shard (statement replication).
	$coord->safe_psql('postgres', <<'EOS');
SET citus.shard_replication_factor = 2;
CREATE TABLE rep (k int PRIMARY KEY, v text);
SELECT create_distributed_table('rep', 'k', colocate_with => 'none', shard_count => 4);
INSERT INTO rep SELECT g, 'x' FROM generate_series(1, 20) g;
EOS
	$err = expect_error($coord, 'ALTER TABLE rep ADD COLUMN id bigint DEFAULT snowflake_nextval()',
		'ADD COLUMN ... DEFAULT snowflake_nextval() on a distributed table with two copies per shard');
	like($err, qr/cannot add column id with DEFAULT snowflake_nextval\(\) to public\.rep/,
		'refused on a replicated distributed table');
}

# Runs a query on every placement of a table (%s: the shard); results in
# placement order.
sub run_on_placements
{
	my ($table, $sql) = @_;
	return map { [ $_->[1] ] } query_rows($coord,
		"SELECT shardid, result FROM run_command_on_placements('$table', \$\$$sql\$\$) ORDER BY shardid, nodeport");
}

# ---- the cluster check flags problems ----------------------------------------
sub problems
{
	return join(',', map { "$_->[0]:$_->[6]" } grep { $_->[6] ne 'ok' } check_rows());
}
{
	my ($p1, $p2) = ($w1->port, $w2->port);
	# Two nodes with one identity.
	set_node_conf($w2, 'snowflake.worker_id = 8');
	wait_for_identity($w2, '3|8');
	is(problems(), "$p1:identity_duplicate,$p2:identity_duplicate",
		'cluster check: two nodes with one identity are both flagged');
	my ($row) = grep { $_->[0] == $p2 } check_rows();
	like($row->[7], qr/datacenter_id 3, worker_id 8 is also the identity of .*:$p1/,
		'cluster check: the duplicate names the other node');

	# A node with no identity.  Leaving 3|8, which it shared with worker1,
	# it retired it: worker1's ids under 3|8 began before worker2's last one
	# there, so the two could be equal, and worker1 is flagged as long as
	# worker2 shows 3|8 as its retired identity.
	set_node_conf($w2, 'snowflake.worker_id = -1');
	wait_for_identity($w2, '3|');
	is(problems(), "$p1:identity_recently_retired,$p2:identity_missing",
		'cluster check: a node without identity is flagged, and one whose identity it retired');
	($row) = grep { $_->[0] == $p1 && $_->[6] eq 'identity_recently_retired' } check_rows();
	like($row->[7], qr/datacenter_id 3, worker_id 8: .*:$p2 retired it until .*this node's ids under it start at/,
		'cluster check: the retirement names the node that retired the identity, and when');
	my $err = expect_error($coord,
		"INSERT INTO events_copy (tenant, src) SELECT tenant, 'insert-select' FROM events",
		'INSERT ... SELECT with a shard-holding worker without identity');
	like($err, qr/snowflake\.worker_id is not set/,
		'INSERT ... SELECT fails on the worker without identity');
	$coord->safe_psql('postgres', "INSERT INTO events (tenant, src) VALUES (1, 'coord-values')");
	pass('plain INSERT through the coordinator still works');
	set_node_conf($w2, 'snowflake.worker_id = 9');
	wait_for_identity($w2, '3|9');
	is(problems(), "$p1:identity_recently_retired", 'cluster check: worker1 stays flagged');
	# Once worker2 has left another identity since, it no longer shows 3|8.
	set_node_conf($w2, 'snowflake.worker_id = 10');
	wait_for_identity($w2, '3|10');
	set_node_conf($w2, 'snowflake.worker_id = 9');
	wait_for_identity($w2, '3|9');
	is(problems(), '', 'cluster check: healthy again');

	# A node that does not answer.
	$w2->stop;
	is(problems(), "$p2:unreachable", 'cluster check: a node that does not answer is flagged');
	$w2->start;
	is(problems(), '', 'cluster check: healthy after the restart');

	# Another epoch (an earlier one: the state file accepts it; a later one
	# would be refused, so the node keeps it to the end of this test).
	$w2->append_conf('postgresql.conf', 'snowflake.epoch = 1288834974000');
	$w2->restart;
	is(problems(), "$p2:epoch_mismatch", 'cluster check: an epoch mismatch is flagged');
}

# ---- without Citus -----------------------------------------------------------
{
	$coord->safe_psql('postgres', 'CREATE DATABASE nocitus');
	$coord->safe_psql('nocitus', 'CREATE EXTENSION snowflake');
	my ($stdout, $stderr);
	$coord->psql('nocitus', 'SELECT * FROM snowflake_cluster_check()', stderr => \$stderr);
	like($stderr, qr/snowflake_cluster_check\(\) needs Citus/,
		'cluster check: refused clearly in a database without Citus');
	is($coord->safe_psql('nocitus', <<'EOS'), 't', 'ADD COLUMN DEFAULT works in a database without Citus');
CREATE TABLE t (a int); INSERT INTO t VALUES (1), (2);
ALTER TABLE t ADD COLUMN id bigint DEFAULT snowflake_nextval();
SELECT count(DISTINCT id) = 2 FROM t;
EOS
	my $err = expect_error($w1, 'SELECT * FROM snowflake_cluster_check()', 'cluster check on a worker');
	like($err, qr/runs on the Citus coordinator/, 'cluster check: refused on a worker');
}

done_testing();
