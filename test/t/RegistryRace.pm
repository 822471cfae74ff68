# Helpers of the registry race tests (060-062): a registry server, ids
# collected from a node in the background while something happens, the
# registry's table locked for a while (a slow registry), and the checks
# across nodes.
package RegistryRace;

use strict;
use warnings;

use Exporter 'import';
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

our @EXPORT = qw(
  new_registry registry_line start_collect finish_collect lock_registry unlock_registry
  equal_ids ids_of_pair
);

# A started registry server with the extension; returns the node.
sub new_registry
{
	my ($name) = @_;
	my $r = PostgreSQL::Test::Cluster->new($name);
	$r->init;
	$r->start;
	$r->safe_psql('postgres', 'CREATE EXTENSION snowflake');
	return $r;
}

# The snowflake.registry line for nodes of registry $r.
sub registry_line
{
	my ($r) = @_;
	return "snowflake.registry = 'host=" . $r->host . ' port=' . $r->port . " dbname=postgres'";
}

# Collects ids on $node for $seconds in the background: batches of 50
# snowflake_nextval() calls, each batch in its own subtransaction, so that
# a refused batch is counted and the loop goes on.  The extension must
# exist on $node.  Returns what finish_collect takes.
sub start_collect
{
	my ($node, $seconds, $tag) = @_;
	$node->safe_psql('postgres', "DROP TABLE IF EXISTS got_$tag, err_$tag;
		CREATE TABLE got_$tag (id bigint); CREATE TABLE err_$tag (at timestamptz, msg text)");
	my $sql = <<"EOS";
DO \$\$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
    WHILE clock_timestamp() < t0 + interval '$seconds s' LOOP
        BEGIN
            INSERT INTO got_$tag SELECT snowflake_nextval() FROM generate_series(1, 50);
        EXCEPTION WHEN others THEN
            INSERT INTO err_$tag VALUES (clock_timestamp(), SQLERRM);
            PERFORM pg_sleep(0.05);
        END;
        PERFORM pg_sleep(0.001);
    END LOOP;
END
\$\$;
EOS
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-c', $sql ],
		'>', \$out, '2>', \$err);
	return { h => $h, node => $node, tag => $tag, err => \$err };
}

# Waits for a start_collect run; returns (reference to the ids, reference
# to the error messages).
sub finish_collect
{
	my ($c) = @_;
	$c->{h}->finish;
	note "collector $c->{tag}: psql exit " . $c->{h}->result(0) . ' ' . ${ $c->{err} }
	  if $c->{h}->result(0);
	my $n = $c->{node};
	my @ids = split /\n/, $n->safe_psql('postgres', "SELECT id FROM got_$c->{tag}");
	my @errs = split /\n/, $n->safe_psql('postgres', "SELECT DISTINCT msg FROM err_$c->{tag}");
	return (\@ids, \@errs);
}

# Locks the registry's table (as a registry that does not answer for a
# while) until unlock_registry: every claim, renewal and reservation waits.
sub lock_registry
{
	my ($r) = @_;
	my ($in, $out, $err) = ('', '', '');
	my $h = IPC::Run::start([ 'psql', '-X', '-q', '-d', $r->connstr('postgres') ],
		'<', \$in, '>', \$out, '2>', \$err);
	$in .= "BEGIN;\nLOCK TABLE snowflake_registry IN ACCESS EXCLUSIVE MODE;\n\\echo locked\n";
	$h->pump until $out =~ /locked/;
	return { h => $h, in => \$in };
}

sub unlock_registry
{
	my ($l) = @_;
	${ $l->{in} } .= "COMMIT;\n\\q\n";
	$l->{h}->finish;
}

# How many ids two lists have in common.
sub equal_ids
{
	my ($x, $y) = @_;
	my %seen = map { $_ => 1 } @$x;
	return scalar grep { $seen{$_} } @$y;
}

# The ids of a list under pair ($dc, $worker).
sub ids_of_pair
{
	my ($ids, $dc, $worker) = @_;
	return grep {
		my $d = decode_id($_);
		$d->{datacenter_id} == $dc && $d->{worker_id} == $worker
	} @$ids;
}

1;
