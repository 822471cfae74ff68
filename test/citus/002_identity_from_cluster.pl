# The node identity from the Citus cluster (snowflake.citus_database): nodes
# with no snowflake.worker_id take (datacenter_id, worker_id) from their
# Citus group id, so a node added to the cluster issues ids with no setting
# of its own.
#
# Pinned: before a node is added it has no identity, and says why (no such
# database -- waited for without a FATAL every 10 s --, Citus not installed
# there, not in a cluster yet); once added,
# group g is datacenter g >> worker_bits, worker g & (2^worker_bits - 1);
# a node added after setup issues ids at once, directly and as a shard
# holder of INSERT ... SELECT; the identity is recorded in snowflake.state
# and resumed at a restart; an explicit worker_id wins; a group past the
# layout's node bits gives no identity, with the reason; a node removed from
# the cluster keeps its (retired) group, and added again moves to its new
# one; a node whose Citus metadata is cleared gives its identity up.  The cluster check also flags an extension
# version that differs from the coordinator's.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use lib "$FindBin::RealBin/../t";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CitusTest;
use SnowflakeTest qw(decode_id read_state);

my $from_citus = "snowflake.citus_database = 'postgres'";
my $coord = citus_node('coord', $from_citus);
my $w1 = citus_node('worker1', $from_citus);
my $w2 = citus_node('worker2', $from_citus);

# ---- before the nodes are a cluster -----------------------------------------
$_->safe_psql('postgres', "CREATE EXTENSION snowflake VERSION '1.3'") for ($coord, $w1, $w2);
for my $n ($coord, $w1)
{
	my $err = expect_error($n, 'SELECT snowflake_nextval()', $n->name . ' before joining');
	like($err, qr/snowflake\.worker_id is not set and this node has no identity from Citus/,
		$n->name . ': no identity before the node is in a cluster');
	like($err, qr/this node is not part of a Citus cluster yet/, $n->name . ': and says why');
	like($err, qr/citus_add_node/, $n->name . ': the hint says how to add it');
}
is($coord->safe_psql('postgres', 'SELECT worker_id IS NULL FROM snowflake_status'), 't',
	'snowflake_status: no worker_id before joining');

# A node whose snowflake.citus_database does not exist yet, then exists
# without Citus.
{
	my $lone = PostgreSQL::Test::Cluster->new('lone');
	$lone->init;
	$lone->append_conf('postgresql.conf', <<'EOC');
shared_preload_libraries = 'citus,snowflake'
citus.enable_statistics_collection = off
snowflake.citus_database = 'app'
EOC
	$lone->start;
	$lone->safe_psql('postgres', 'CREATE EXTENSION snowflake');
	my ($stdout, $err);
	$lone->psql('postgres', 'SELECT snowflake_nextval()', stderr => \$err);
	like($err, qr/has no identity from Citus/, 'no database app: no identity');
	# The first connection fails (one FATAL); the worker, restarted 10 s
	# later, waits for the database without connecting: no FATAL every 10 s.
	my $waiting = sub {
		my ($db, $what) = @_;
		for (1 .. 40)
		{
			$lone->psql($db, 'SELECT snowflake_nextval()', stderr => \$err);
			return 1 if $err =~ $what;
			sleep 1;
		}
		return 0;
	};
	my $missing = qr/database "app" \(snowflake\.citus_database\) does not exist or does not accept connections/;
	ok($waiting->('postgres', $missing), 'no database app: the reason says the database is missing')
	  or diag($err);
	sleep 12;    # one more restart period of the old behaviour
	my $fatal_missing = sub {
		my @l = slurp_file($lone->logfile) =~ /FATAL:  database "app" does not exist/g;
		scalar @l;
	};
	is($fatal_missing->(), 1, 'database app missing for 20 s: one FATAL in the log, not one every 10 s');
	my @warned = slurp_file($lone->logfile) =~ /WARNING:  snowflake citus identity: database "app"/g;
	is(scalar @warned, 1, 'and one WARNING saying what it waits for');
	$lone->safe_psql('postgres', 'CREATE DATABASE app');
	$lone->safe_psql('app', 'CREATE EXTENSION snowflake');
	# Seen within 2 s, then restarted 10 s later connected to app.
	ok($waiting->('app', qr/the citus extension is not installed in database "app"/),
		'database app without Citus: no identity, and the reason names the database')
	  or diag($err);
	# The worker connected to app does not keep it from being dropped.
	is($lone->safe_psql('postgres',
			"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'snowflake citus identity' AND datname = 'app'"),
		'1', 'the worker is connected to app');
	my ($ret, $out, $drop_err) = $lone->psql('postgres', 'DROP DATABASE app');
	is($ret, 0, 'DROP DATABASE of snowflake.citus_database works while the worker is connected')
	  or diag($drop_err);
	ok($waiting->('postgres', $missing), 'after the drop, the worker waits for the database again')
	  or diag($err);
	is($fatal_missing->(), 1, 'without a FATAL for the missing database');
	unlike(slurp_file($lone->logfile), qr/FATAL:  terminating background worker "snowflake citus identity"/,
		'nor for the worker leaving the database');
	$lone->stop;
}

# One source at a time: the registry and the Citus group are refused together.
{
	my $both = PostgreSQL::Test::Cluster->new('both');
	$both->init;
	$both->append_conf('postgresql.conf', <<'EOC');
shared_preload_libraries = 'citus,snowflake'
snowflake.registry = 'host=/nonexistent dbname=postgres'
snowflake.citus_database = 'postgres'
EOC
	ok(!$both->start(fail_ok => 1), 'snowflake.registry and snowflake.citus_database: no start');
	like(slurp_file($both->logfile),
		qr/FATAL:  snowflake\.registry and snowflake\.citus_database are both set/,
		'the log names both settings');
}

# ---- the cluster forms ------------------------------------------------------
join_cluster($coord, $w1, $w2);
my $check = <<'EOS';
SELECT node_port, group_id, coalesce(datacenter_id::text, '-'), coalesce(worker_id::text, '-'),
       coalesce(extension_version, '-'), coalesce(problem, 'ok')
FROM snowflake_cluster_check() ORDER BY group_id, node_port, problem
EOS
# The version check: the coordinator updated alone (no DDL propagation).
$coord->safe_psql('postgres',
	"SET citus.enable_ddl_propagation = off; ALTER EXTENSION snowflake UPDATE TO '1.4'");
{
	my @rows = query_rows($coord, $check);
	my @mismatch = grep { $_->[5] eq 'version_mismatch' } @rows;
	is(scalar(@mismatch), 2, 'cluster check: the workers at 1.3 are flagged (version_mismatch)');
	$_->safe_psql('postgres',
		"SET citus.enable_ddl_propagation = off; ALTER EXTENSION snowflake UPDATE TO '1.4'")
	  for ($w1, $w2);
}
sub identities
{
	# Nodes read their group within 2 s; wait until none is missing.
	$coord->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM snowflake_cluster_check() WHERE problem IS NOT NULL")
	  or diag('problems remain: ' . $coord->safe_psql('postgres', $check));
	return join(',', map { "$_->[1]:$_->[2]/$_->[3]:$_->[5]" } query_rows($coord, $check));
}
is(identities(), '0:0/0:ok,1:0/1:ok,2:0/2:ok',
	'each node took its identity from its group: coordinator 0, workers 1 and 2');
is($w1->safe_psql('postgres', 'SELECT identity_source FROM snowflake_status'), 'citus',
	'snowflake_status.identity_source says citus');

# ---- ids on a distributed table ----------------------------------------------
$coord->safe_psql('postgres', <<'EOS');
CREATE TABLE ev (id bigint NOT NULL DEFAULT snowflake_nextval(), k int NOT NULL, src text,
                 PRIMARY KEY (k, id));
SELECT create_distributed_table('ev', 'k', shard_count => 4);
INSERT INTO ev (k, src) SELECT g % 20, 'coord' FROM generate_series(1, 200) g;
INSERT INTO ev (k, src) SELECT k, 'insert-select' FROM ev;
EOS
$w1->safe_psql('postgres', "INSERT INTO ev (k, src) SELECT g % 20, 'mx' FROM generate_series(1, 50) g");
# The Citus group of the node holding each key's shard of a table.
sub holder_groups
{
	my ($table, $keys) = @_;
	my %group_of_shard = map { $_->[0] => $_->[1] } query_rows($coord, <<"EOS");
SELECT p.shardid, p.groupid FROM pg_dist_placement p JOIN pg_dist_shard s USING (shardid)
WHERE s.logicalrelid = '$table'::regclass
EOS
	return map { $_->[0] => $group_of_shard{ $_->[1] } } query_rows($coord,
		"SELECT g, get_shard_id_for_distribution_column('$table', g) FROM generate_series(0, $keys) g");
}
{
	my %holder = holder_groups('ev', 20);
	my %wrong;
	for my $r (query_rows($coord, 'SELECT src, k, (snowflake_parse(id)).worker_id FROM ev'))
	{
		my ($src, $k, $worker) = @$r;
		my $want = $src eq 'coord' ? 0 : $src eq 'mx' ? 1 : $holder{$k};
		$wrong{$src}++ if $worker != $want;
	}
	is(join(',', map { "$_:$wrong{$_}" } sort keys %wrong), '',
		'ids decode to the group of the node that made them (coordinator, worker, shard holders)');
}

# ---- a node added after setup --------------------------------------------------
my $w3 = citus_node('worker3', $from_citus);
$coord->safe_psql('postgres',
	"SELECT citus_add_node('" . $w3->host . "', " . $w3->port . ")");
{
	# At once, on the new node itself: no setting, no wait for a poll.
	my $id = $w3->safe_psql('postgres',
		"INSERT INTO ev (k, src) VALUES (1, 'new-node') RETURNING id");
	my $d = decode_id($id);
	is("$d->{datacenter_id}/$d->{worker_id}", '0/3', 'a node added after setup issues ids at once, as group 3');
	# As the holder of shards of a table created after it joined.
	$coord->safe_psql('postgres', <<'EOS');
CREATE TABLE ev2 (id bigint NOT NULL DEFAULT snowflake_nextval(), k int NOT NULL, src text,
                  PRIMARY KEY (k, id));
SELECT create_distributed_table('ev2', 'k', shard_count => 6);
INSERT INTO ev2 (k, src) SELECT g, 'coord' FROM generate_series(1, 60) g;
INSERT INTO ev2 (k, src) SELECT k, 'insert-select' FROM ev2;
EOS
	my %holder = holder_groups('ev2', 60);
	my ($w3_rows, $wrong) = (0, 0);
	for my $r (query_rows($coord, 'SELECT k, (snowflake_parse(id)).worker_id, src FROM ev2'))
	{
		$wrong++ if $r->[1] != ($r->[2] eq 'coord' ? 0 : $holder{ $r->[0] });
		$w3_rows++ if $r->[1] == 3;
	}
	is($wrong, 0, 'ev2: every id decodes to the group holding its row');
	cmp_ok($w3_rows, '>', 0, 'the new node made the ids of INSERT ... SELECT on its shards');
	is($coord->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM ev2'), 't',
		'ev2: every id distinct');
	is(identities(), '0:0/0:ok,1:0/1:ok,2:0/2:ok,3:0/3:ok', 'cluster check: four nodes, four groups');
}

# ---- recorded and resumed ------------------------------------------------------
{
	my $state = read_state($w3);
	like($state->{registry_node_key} // '', qr/^citus:/,
		'snowflake.state records the identity as one from Citus');
	is("$state->{datacenter_id}/$state->{worker_id}", '0/3', 'with the pair in use');
	$w3->restart;
	my $log = slurp_file($w3->logfile);
	like($log, qr/resuming the identity from Citus recorded in snowflake\.state: datacenter_id 0 worker_id 3/,
		'a restart resumes it from snowflake.state');
	is($w3->safe_psql('postgres', 'SELECT worker_id FROM snowflake_status'), '3', 'worker 3 after the restart');
}

# ---- an explicit worker_id wins ------------------------------------------------
{
	set_node_conf($w2, 'snowflake.worker_id = 20');
	wait_for_identity($w2, '0|20');
	my $id = $w2->safe_psql('postgres', "INSERT INTO ev (k, src) VALUES (2, 'explicit') RETURNING id");
	is(decode_id($id)->{worker_id}, 20, 'an explicit snowflake.worker_id wins over the group');
	is($w2->safe_psql('postgres', 'SELECT identity_source FROM snowflake_status'), 'configured',
		'identity_source: configured');
	# Back to the group: the setting unset (-1) and a restart.
	set_node_conf($w2, 'snowflake.worker_id = -1');
	$w2->restart;
	wait_for_identity($w2, '0|2');
	pass('unset again and restarted: the group identity');
}

# ---- past the node bits -------------------------------------------------------
my $w4 = citus_node('worker4', $from_citus, 'snowflake.datacenter_bits = 0',
	'snowflake.worker_bits = 2');
{
	$coord->safe_psql('postgres',
		"SELECT citus_add_node('" . $w4->host . "', " . $w4->port . ")");
	my $err = expect_error($w4, 'SELECT snowflake_nextval()', 'group 4 with 2 node bits');
	like($err, qr/Citus group 4 does not fit the node bits: snowflake\.datacenter_bits = 0 and snowflake\.worker_bits = 2 number groups 0 to 3/,
		'a group past the node bits: no identity, and the reason');
	my @rows = grep { $_->[0] == $w4->port } query_rows($coord, $check);
	is(join(',', map { $_->[5] } @rows), 'identity_missing,layout_mismatch',
		'cluster check: the node is flagged');

	# Removed from the cluster: Citus leaves the node's catalog as it was
	# (its group is retired: Citus never gives it again).
	$coord->safe_psql('postgres',
		"SELECT citus_remove_node('" . $w4->host . "', " . $w4->port . ")");
	is($w4->safe_psql('postgres', 'SELECT groupid FROM pg_dist_local_group'), '4',
		'a node removed with citus_remove_node keeps its group');
	# With the cluster's layout, it takes that retired group at start, and
	# added again, moves to its new group.
	$w4->adjust_conf('postgresql.conf', 'snowflake.datacenter_bits', '5');
	$w4->adjust_conf('postgresql.conf', 'snowflake.worker_bits', '5');
	$w4->restart;
	wait_for_identity($w4, '0|4');
	$coord->safe_psql('postgres',
		"SELECT citus_add_node('" . $w4->host . "', " . $w4->port . ")");
	wait_for_identity($w4, '0|5');
	my $id = $w4->safe_psql('postgres', "INSERT INTO ev (k, src) VALUES (3, 're-added') RETURNING id");
	is(decode_id($id)->{worker_id}, 5, 'added again: group 5, worker 5');
	is(identities(), '0:0/0:ok,1:0/1:ok,2:0/2:ok,3:0/3:ok,5:0/5:ok',
		'cluster check: every node its own group');

	# Its metadata cleared by Citus (group 0, no nodes): the node gives its
	# identity up, and no restart resumes it.
	$coord->safe_psql('postgres',
		"SELECT stop_metadata_sync_to_node('" . $w4->host . "', " . $w4->port . ")");
	wait_for_identity($w4, '0|');
	$err = expect_error($w4, 'SELECT snowflake_nextval()', 'node whose metadata was cleared');
	like($err, qr/not part of a Citus cluster yet/, 'metadata cleared: the identity is given up');
	$w4->restart;
	is($w4->safe_psql('postgres', 'SELECT worker_id IS NULL FROM snowflake_status'), 't',
		'and no restart resumes it');
	$coord->safe_psql('postgres',
		"SELECT start_metadata_sync_to_node('" . $w4->host . "', " . $w4->port . ")");
	wait_for_identity($w4, '0|5');
	pass('metadata synced again: group 5 again');
}

# Every id of the distributed tables distinct.
is($coord->safe_psql('postgres',
		'SELECT count(*) = count(DISTINCT id) FROM (SELECT id FROM ev UNION ALL SELECT id FROM ev2) u'),
	't', 'no id twice over the tables');

done_testing();
