# Settings: a bad value in postgresql.conf stops the server with a message
# naming the setting; on reload it is ignored (and named in the log); an
# unset worker id makes snowflake_nextval() fail with a hint, naming a
# misspelt snowflake.* line of the configuration if there is one.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('settings');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'snowflake'");
$node->append_conf('postgresql.conf', "include_if_exists 'snowflake_case.conf'");

# The settings under test live in their own included file, rewritten per case.
sub set_case
{
	my ($node, @lines) = @_;
	open my $fh, '>', $node->data_dir . '/snowflake_case.conf' or die $!;
	print $fh map { "$_\n" } @lines;
	close $fh;
}
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION snowflake');

# Unset worker id: an error with a hint, and decoding still works.
my ($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_nextval()');
isnt($ret, 0, 'nextval fails while snowflake.worker_id is unset');
like($err, qr/ERROR:  snowflake.worker_id is not set/, 'error names the setting');
like($err, qr/HINT:  Set snowflake.worker_id in postgresql.conf to a value from 0 to 31/,
	'hint says what to set');
is($node->safe_psql('postgres', 'SELECT worker_id FROM snowflake_parse(910499571847892992)'),
	'25', 'decoding works without a worker id');

# A misspelt setting (here added by a reload, in an included file) is no
# setting at all: the error names it, where it is written, and what it likely
# meant.
set_case($node, 'snowflake.workerid = 9', 'snowflake.bogus = 1');
$node->reload;
$node->poll_query_until('postgres',
	q{SELECT count(*) > 0 FROM pg_file_settings WHERE name = 'snowflake.workerid'})
  or die 'reload not applied';
($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_nextval()');
like($err, qr/ERROR:  snowflake.worker_id is not set/, 'a typo leaves the worker id unset');
like($err, qr{DETAIL:  \S*/snowflake_case\.conf line 1 sets "snowflake\.workerid", which is not a snowflake setting \(did you mean snowflake\.worker_id\?\)\.},
	'... and the error names the misspelt line, its file and line number, and what it meant');
like($err, qr{snowflake_case\.conf line 2 sets "snowflake\.bogus", which is not a snowflake setting\.},
	'... and a name that is like no setting, without a guess');

# Set it by reload: ids flow.
set_case($node, 'snowflake.worker_id = 9');
$node->reload;
$node->poll_query_until('postgres', 'SELECT current_setting($$snowflake.worker_id$$) = $$9$$')
  or die 'reload not applied';
is($node->safe_psql('postgres', 'SELECT (snowflake_parse(snowflake_nextval())).worker_id'),
	'9', 'worker id from a reload is used');

# A bad value on reload is ignored, named in the log, and the old value stays.
my $log_offset = -s $node->logfile;
set_case($node, 'snowflake.worker_id = 32');
$node->reload;
ok($node->wait_for_log(qr/invalid value for parameter "snowflake.worker_id": "?32"?/, $log_offset),
	'reload with worker_id 32 is refused, and the log names the setting');
is($node->safe_psql('postgres', 'SHOW snowflake.worker_id'), '9', 'old worker id kept (no wrap to 0)');
$node->stop;

# Each bad value refuses to start, with a message that names the setting.
my @bad = (
	[ 'snowflake.worker_id = 32',          'snowflake.worker_id',     'Valid values are 0 to 31' ],
	[ 'snowflake.worker_id = -2',          'snowflake.worker_id',     'Valid values are 0 to 31' ],
	[ 'snowflake.worker_id = abc',         'snowflake.worker_id',     'Valid values' ],
	[ 'snowflake.datacenter_id = 32',      'snowflake.datacenter_id', 'Valid values are 0 to 31' ],
	# A width's range is what the other two leave (28 bits for the three).
	[ 'snowflake.sequence_bits = 0',       'snowflake.sequence_bits', 'Valid values are 1 to 18 with snowflake.datacenter_bits = 5 and snowflake.worker_bits = 5' ],
	[ 'snowflake.sequence_bits = 20',      'snowflake.sequence_bits', 'Valid values are 1 to 18 with' ],
	[ 'snowflake.sequence_bits = 30',      'snowflake.sequence_bits', 'Valid values are 1 to 18 with' ],
	[ 'snowflake.datacenter_bits = 20',    'snowflake.datacenter_bits', 'Valid values are 0 to 11 with snowflake.worker_bits = 5 and snowflake.sequence_bits = 12' ],
	[ 'snowflake.worker_bits = 64',        'snowflake.worker_bits',   'Valid values are 0 to 11 with' ],
	[ "snowflake.epoch = 'yesterday'",     'snowflake.epoch',         'integer number of milliseconds' ],
	# Syntax and range only: a clock still behind the epoch is no reason to
	# refuse start (017_host_safety).
	[ "snowflake.epoch = '10000-01-01'",   'snowflake.epoch',         'integer number of milliseconds' ],
	[ "snowflake.epoch = '253402300800000'", 'snowflake.epoch',       'between 1970-01-01 and 9999-12-31 UTC' ],
	[ "snowflake.epoch = '-5'",            'snowflake.epoch',         'between 1970-01-01 and 9999-12-31 UTC' ],
	[ "snowflake.clock_backward_policy = 'sometimes'", 'snowflake.clock_backward_policy', '"error", "wait" and "borrow"' ],
	[ 'snowflake.max_clock_backward_ms = -1', 'snowflake.max_clock_backward_ms', 'Valid values are 0 to 2147483647 ms (24.85 d).' ],
	# The limit also in the unit written, and a unit PostgreSQL does not know named.
	[ "snowflake.max_clock_backward_ms = '900h'", 'snowflake.max_clock_backward_ms', 'Valid values are 0 to 2147483647 ms (596.52 h).' ],
	[ "snowflake.max_clock_backward_ms = '10 minutes'", 'snowflake.max_clock_backward_ms', '"minutes" is not a unit of this setting: the units are "us", "ms", "s", "min", "h" and "d".' ],
	[ 'snowflake.random_sequence_start = maybe', 'snowflake.random_sequence_start', 'on and off' ],
);
foreach my $case (@bad) {
	my ($line, $name, $detail) = @$case;
	my $offset = -s $node->logfile;
	set_case($node, 'snowflake.worker_id = 9', $line);
	my $started = $node->start(fail_ok => 1);
	ok(!$started, "start refused with $line");
	my $log = substr(slurp_file($node->logfile), $offset);
	like($log, qr/invalid value for parameter "\Q$name\E"/, "message names $name");
	like($log, qr/\Q$detail\E/, "detail for $line");
	$node->stop if $started;
}

# Two widths that are fine alone but too wide together: both are named.
{
	my $offset = -s $node->logfile;
	set_case($node, 'snowflake.worker_id = 9', 'snowflake.datacenter_bits = 10', 'snowflake.worker_bits = 10');
	my $started = $node->start(fail_ok => 1);
	ok(!$started, 'start refused with datacenter_bits = 10 and worker_bits = 10');
	my $log = substr(slurp_file($node->logfile), $offset);
	like($log,
		qr/FATAL:  invalid values for parameters "snowflake.datacenter_bits" \("10"\) and "snowflake.worker_bits" \("10"\)/,
		'the message names both widths');
	like($log, qr/layout 10\/10\/12 .* at least 35 timestamp bits/, 'the detail shows the layout');
	$node->stop if $started;
}
set_case($node, 'snowflake.worker_id = 9');

$node->start;
is($node->safe_psql('postgres', 'SELECT count(*) FROM snowflake_generate(5)'), '5', 'node starts again after the bad values are removed');
$node->stop;

done_testing();
