# Helpers of the Citus suite: nodes with Citus and snowflake preloaded,
# joined into one cluster, and what the tests ask of Citus's catalog.
#
# Every node listens on the tests' shared Unix-socket directory; Citus's node
# names are that directory (libpq takes a directory as a host), and
# citus.local_hostname says so, so the coordinator can reach itself too.
package CitusTest;

use strict;
use warnings;

use Exporter 'import';
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT = qw(
  citus_node join_cluster set_node_conf query_rows placements expect_error
  wait_for_identity
);

# A started node with Citus first in shared_preload_libraries, snowflake
# second, the given postgresql.conf lines, and an included file
# snowflake_case.conf for per-case settings (set_node_conf).  CREATE
# EXTENSION citus is run on it; snowflake is created on the coordinator,
# which Citus propagates.
sub citus_node
{
	my ($name, @lines) = @_;
	my $n = PostgreSQL::Test::Cluster->new($name);
	$n->init;
	$n->append_conf('postgresql.conf', join('', map { "$_\n" } (
		"shared_preload_libraries = 'citus,snowflake'",
		# Citus writes reference tables with two-phase commit.
		"max_prepared_transactions = 20",
		"citus.local_hostname = '" . $n->host . "'",
		# Nothing leaves the machine.
		"citus.enable_statistics_collection = off",
		@lines,
		"include_if_exists 'snowflake_case.conf'")));
	$n->start;
	$n->safe_psql('postgres', 'CREATE EXTENSION citus');
	return $n;
}

# Registers the coordinator in Citus's metadata (group 0, so it holds
# reference tables and takes part in run_command_on_all_nodes) and adds the
# workers.
sub join_cluster
{
	my ($coord, @workers) = @_;
	$coord->safe_psql('postgres',
		"SELECT citus_set_coordinator_host('" . $coord->host . "', " . $coord->port . ")");
	for my $w (@workers)
	{
		$coord->safe_psql('postgres',
			"SELECT citus_add_node('" . $w->host . "', " . $w->port . ")");
	}
}

# Rewrites the node's snowflake_case.conf with the given lines and reloads.
sub set_node_conf
{
	my ($node, @lines) = @_;
	my $f = $node->data_dir . '/snowflake_case.conf';
	open my $fh, '>', "$f.tmp" or die "$f.tmp: $!";
	print $fh map { "$_\n" } @lines;
	close $fh or die $!;
	rename "$f.tmp", $f or die $!;
	$node->reload;
}

# Waits until the node's snowflake_status shows the given identity
# ('dc|worker', or '|' for none).
sub wait_for_identity
{
	my ($node, $want) = @_;
	$node->poll_query_until('postgres',
		"SELECT coalesce(datacenter_id::text, '') || '|' || coalesce(worker_id::text, '') "
		  . "FROM snowflake_status", $want)
	  or die $node->name . ": the identity did not become $want";
}

# The rows of a query as array refs (columns split on '|').
sub query_rows
{
	my ($node, $sql) = @_;
	my $out = $node->safe_psql('postgres', $sql);
	return map { [ split /\|/, $_, -1 ] } grep { $_ ne '' } split /\n/, $out;
}

# Every placement of a Citus table: [shardid, shard relation name, node port].
sub placements
{
	my ($coord, $table) = @_;
	return query_rows($coord, <<"EOS");
SELECT s.shardid, shard_name('$table'::regclass, s.shardid), p.nodeport
FROM pg_dist_shard s JOIN pg_dist_shard_placement p USING (shardid)
WHERE s.logicalrelid = '$table'::regclass ORDER BY 1, 3
EOS
}

# Runs SQL that must fail; returns its stderr.
sub expect_error
{
	my ($node, $sql, $name) = @_;
	my ($stdout, $stderr);
	my $ret = $node->psql('postgres', $sql, stdout => \$stdout, stderr => \$stderr,
		on_error_stop => 1);
	isnt($ret, 0, "$name: refused");
	return $stderr // '';
}

1;
