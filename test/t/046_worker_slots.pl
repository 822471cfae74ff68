# Background worker slots (issue 11, finding 7): snowflake holds one slot (the
# reserver), two in registry mode (and the registrar); a server whose
# max_worker_processes leaves it none refuses to start, naming the setting,
# instead of starting without the reserver and failing every id later.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('slots');
$node->init;
$node->append_conf('postgresql.conf', <<'EOC');
shared_preload_libraries = 'snowflake'
include_if_exists 'snowflake_case.conf'
EOC

sub set_case
{
	my (@lines) = @_;
	open my $fh, '>', $node->data_dir . '/snowflake_case.conf' or die $!;
	print $fh map { "$_\n" } @lines;
	close $fh;
}

# Starts with the given settings; returns (started, log written meanwhile).
sub try_start
{
	my (@lines) = @_;
	set_case(@lines);
	my $offset = -s $node->logfile;
	my $started = $node->start(fail_ok => 1);
	return ($started, slurp_file($node->logfile, $offset));
}

my ($started, $log);

($started, $log) = try_start('max_worker_processes = 0', 'snowflake.worker_id = 1');
ok(!$started, 'max_worker_processes = 0: the server refuses to start');
like($log, qr/FATAL:  max_worker_processes = 0 leaves no background worker slot for "snowflake reserver"/,
	'... naming max_worker_processes and the worker');
like($log, qr/DETAIL:  snowflake needs 1 background worker slot for as long as the server runs \(the reserver\); 0 were already taken when it asked\./,
	'... saying how many slots snowflake needs');
like($log, qr/HINT:  Raise max_worker_processes in postgresql.conf by at least 1 and start the server again/,
	'... and what to do');

# The logical replication launcher registers first and takes a slot of its
# own, so 1 is not enough either.
($started, $log) = try_start('max_worker_processes = 1', 'snowflake.worker_id = 1');
ok(!$started, 'max_worker_processes = 1: refused (the launcher holds the only slot)');
like($log, qr/FATAL:  max_worker_processes = 1 leaves no background worker slot for "snowflake reserver"/,
	'... naming the reserver');
like($log, qr/DETAIL:  snowflake needs 1 background worker slot .*; 1 was already taken when it asked\./,
	'... and the slot taken before it');

# Registry mode needs a second slot, for the registrar.
($started, $log) = try_start('max_worker_processes = 2',
	q{snowflake.registry = 'host=127.0.0.1 port=1 dbname=postgres'});
ok(!$started, 'registry mode with max_worker_processes = 2: refused');
like($log, qr/FATAL:  max_worker_processes = 2 leaves no background worker slot for "snowflake registrar"/,
	'... naming the registrar');
like($log, qr/DETAIL:  snowflake needs 2 background worker slots for as long as the server runs \(the reserver, and the registrar while snowflake.registry is set and snowflake.worker_id is not\); 2 were already taken when it asked\./,
	'... and the two slots');
like($log, qr/HINT:  Raise max_worker_processes in postgresql.conf by at least 1 /, '... and by how much');

# Enough slots: the server starts and issues ids.
($started, $log) = try_start('max_worker_processes = 2', 'snowflake.worker_id = 1');
ok($started, 'max_worker_processes = 2 is enough for a node with a worker_id');
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');
ok($node->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), '... and it issues ids');
$node->stop;

($started, $log) = try_start('max_worker_processes = 3',
	q{snowflake.registry = 'host=127.0.0.1 port=1 dbname=postgres'});
ok($started, 'max_worker_processes = 3 is enough in registry mode');
$node->stop;
done_testing();
