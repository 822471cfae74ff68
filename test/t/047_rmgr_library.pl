# The WAL records of snowflake's resource manager (id 187) need the library to
# be replayed (issue 11, finding 6): taken out of shared_preload_libraries
# after a crash, the server cannot start; put back, it recovers; taken out
# after a clean shutdown (whose checkpoint leaves nothing to replay), the
# server starts.  These are the README's recovery steps, as a test.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('rmgr');
$node->init;
$node->append_conf('postgresql.conf', "include_if_exists 'snowflake_case.conf'");

sub preload
{
	my ($on) = @_;
	open my $fh, '>', $node->data_dir . '/snowflake_case.conf' or die $!;
	print $fh "shared_preload_libraries = 'snowflake'\nsnowflake.worker_id = 1\n" if $on;
	close $fh;
}

preload(1);
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$node->safe_psql('postgres', 'CHECKPOINT');
# Ids after the checkpoint: their marks are in WAL that a crash replays.
$node->safe_psql('postgres', 'SELECT count(snowflake_nextval()) FROM generate_series(1, 1000)');
$node->stop('immediate');

preload(0);
my $offset = -s $node->logfile;
ok(!$node->start(fail_ok => 1),
	'after a crash, the server does not start without the library');
like(slurp_file($node->logfile, $offset), qr/resource manager with ID 187 not registered/,
	'... because WAL to replay holds snowflake\'s records (rmgr 187)');

preload(1);
ok($node->start(fail_ok => 1), 'with snowflake back in shared_preload_libraries it recovers');
ok($node->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), '... and issues ids');

# The safe way out: a clean shutdown (its checkpoint), then remove it.
$node->stop('fast');
preload(0);
ok($node->start(fail_ok => 1), 'after a clean shutdown it starts without the library');
my ($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/snowflake is not loaded/, '... where generating says it is not loaded');
$node->stop;
done_testing();
