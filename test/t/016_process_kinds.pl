# Loading the library changes nothing else in the server (issue 17): every
# kind of server process that restores or initialises settings works on a
# node with snowflake.worker_id AND snowflake.datacenter_id configured, at
# PostgreSQL's default parallel settings unless a case says otherwise:
#   - parallel query: workers launched and the right count; snowflake_parse,
#     snowflake_timestamp and snowflake_nextval evaluated in parallel workers
#     (parallel query forced) give what a serial run gives, ids of this node;
#   - parallel CREATE INDEX, REINDEX, ALTER TABLE ADD PRIMARY KEY on a table
#     over 8 MB (their index builds go parallel at the defaults);
#   - parallel VACUUM of a table with two indexes, and plain VACUUM;
#   - autovacuum and autoanalyze of a table;
#   - logical replication: the table-sync and apply workers of a subscriber
#     with the library preloaded and its own identity, which fill a DEFAULT
#     snowflake_nextval() column;
#   - a walsender and a hot standby that copied the configuration (read
#     queries there, parallel ones included);
#   - pg_dump and pg_restore of a database with snowflake-keyed tables: no
#     error, every index and key restored (a big table's builds go parallel);
#   - pg_upgrade --check from a cluster that preloads snowflake but never
#     issued an id, after which that cluster still starts;
#   - postgres --single and postgres -C;
# and a fresh node whose clock never went back reports
# max_clock_backward_step_ms = 0.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use File::Temp ();
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use SnowflakeTest;

# A node with the library preloaded and the identity DC/WORKER; %opt go to init.
sub identity_node
{
	my ($name, $dc, $worker, %opt) = @_;
	my $n = PostgreSQL::Test::Cluster->new($name);
	$n->init(%opt);
	$n->append_conf('postgresql.conf', join('', map { "$_\n" } (
		"shared_preload_libraries = 'snowflake'",
		"snowflake.datacenter_id = $dc",
		"snowflake.worker_id = $worker",
		# The backend type in the log: the lines of parallel workers show.
		"log_line_prefix = '%m [%p] %b %q%a '")));
	return $n;
}

my $primary = identity_node('kinds', 17, 25, allows_streaming => 'logical');
# Autovacuum visits every database each second (not a parallel setting).
$primary->append_conf('postgresql.conf', "autovacuum_naptime = 1s\n");
$primary->start;
my $force = $primary->pg_version >= 16 ? 'debug_parallel_query' : 'force_parallel_mode';

# psql that does not die: (ok, stdout, stderr).
sub try_psql
{
	my ($node, $db, $sql) = @_;
	my ($ret, $out, $err) = $node->psql($db, $sql, on_error_stop => 1);
	return ($ret == 0, $out, $err);
}

# Runs $sql; passes if it succeeds, shows stderr if not.  Returns stdout.
sub runs_ok
{
	my ($node, $db, $sql, $name) = @_;
	my ($ok, $out, $err) = try_psql($node, $db, $sql);
	ok($ok, $name) or diag("stderr: $err");
	return ($out, $err);
}

# Setup statements run serially: only the statements under test may fail.
my $setup = 'SET max_parallel_workers_per_gather = 0; SET max_parallel_maintenance_workers = 0;';
my $parallel = "SET $force = on; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; "
  . "SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;";
my $serial = "SET $force = off; SET max_parallel_workers_per_gather = 0;";

# ---- A fresh node: ids of the configured node; no clock step reported.
# Its first id waits for the reserver's first reservation, held up here as by
# a slow disk: meanwhile the backend retries, which is what a burst of first
# ids from several sessions does too.
$primary->safe_psql('postgres', 'CREATE EXTENSION snowflake');
my $reserver = worker_pid($primary, 'snowflake reserver');
ok($reserver, 'the reserver runs');
kill 'STOP', $reserver;
my ($first, $first_err) = ('', '');
my $h = IPC::Run::start([ 'psql', '-XAtq', '-d', $primary->connstr('postgres'),
		'-c', 'SELECT snowflake_nextval()' ], '>', \$first, '2>', \$first_err);
# Once the statement runs, it waits (and retries) until the reserver resumes.
my $waiting = $primary->poll_query_until('postgres', q{SELECT count(*) = 1 FROM pg_stat_activity
  WHERE query = 'SELECT snowflake_nextval()' AND state = 'active'});
usleep(100_000);
kill 'CONT', $reserver;
ok($waiting, 'the first id waited for the reservation');
$h->finish;
chomp $first;
like($first, qr/^\d+$/, 'the first id, once the reservation is made') or diag($first_err);
$first = $primary->safe_psql('postgres',
	'SELECT max(id) FROM (SELECT snowflake_nextval() AS id FROM generate_series(1, 1000)) s');
is(decode_id($first)->{datacenter_id} . '/' . decode_id($first)->{worker_id}, '17/25',
	'ids carry datacenter 17, worker 25');
is($primary->safe_psql('postgres',
		'SELECT clock_backward_events || \'/\' || max_clock_backward_step_ms FROM snowflake_status'),
	'0/0', 'fresh node, clock never went back: clock_backward_events 0, max_clock_backward_step_ms 0');

# ---- Parallel query at the default settings: a table over 8 MB.
$primary->safe_psql('postgres', $setup . q{
CREATE TABLE big AS SELECT snowflake_generate(1000000) AS id, 0 AS pad;
CREATE INDEX big_pad ON big (pad);
ANALYZE big;
CREATE TABLE ids AS SELECT snowflake_generate(100000) AS id;
ANALYZE ids;
});
my ($plan) = runs_ok($primary, 'postgres',
	'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM big',
	'parallel query: EXPLAIN ANALYZE SELECT count(*) runs');
like($plan, qr/Workers Launched: [1-9]/, 'parallel query: workers launched at the default settings')
  or diag($plan);
my ($count) = runs_ok($primary, 'postgres', 'SELECT count(*) FROM big', 'parallel query: count runs');
is($count, '1000000', 'parallel query: the count is right');

# snowflake_parse and snowflake_timestamp evaluated in parallel workers give
# what the leader alone gives.
my $decode = q{SELECT count(*), sum(p.datacenter_id), sum(p.worker_id), sum(p.sequence),
  min(p.ts), max(p.ts), sum(p.unix_ms), bool_and(snowflake_timestamp(i.id) = p.ts)
  FROM ids i, snowflake_parse(i.id) p};
my ($serial_decode) = runs_ok($primary, 'postgres', "$serial $decode", 'decoding, serial');
($plan) = runs_ok($primary, 'postgres',
	"$parallel EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $decode",
	'decoding in parallel workers: EXPLAIN ANALYZE runs');
like($plan, qr/Workers Launched: [1-9]/, 'decoding: parallel workers launched') or diag($plan);
my ($parallel_decode) = runs_ok($primary, 'postgres', "$parallel $decode",
	'decoding in parallel workers runs');
is($parallel_decode, $serial_decode,
	'snowflake_parse and snowflake_timestamp in parallel workers = serial');
like($serial_decode, qr/^100000\|1700000\|2500000\|/, 'and they decode 100000 ids of 17/25');

# snowflake_nextval in parallel workers: unique ids of this node, above the
# ids issued before.
my $before = $primary->safe_psql('postgres', "$setup SELECT snowflake_nextval()");
my $nextval = q{SELECT count(*), count(DISTINCT s.id), min(s.id) > %s,
  min(p.datacenter_id), max(p.datacenter_id), min(p.worker_id), max(p.worker_id)
  FROM (SELECT snowflake_nextval() AS id FROM ids) s, snowflake_parse(s.id) p};
($plan) = runs_ok($primary, 'postgres',
	"$parallel EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, VERBOSE) "
	  . sprintf($nextval, $before),
	'snowflake_nextval in parallel workers: EXPLAIN ANALYZE runs');
like($plan, qr/Workers Launched: [1-9]/, 'snowflake_nextval: parallel workers launched')
  or diag($plan);
my ($ids_in_workers) = runs_ok($primary, 'postgres', "$parallel " . sprintf($nextval, $before),
	'snowflake_nextval in parallel workers runs');
is($ids_in_workers, '100000|100000|t|17|17|25|25',
	'snowflake_nextval in parallel workers: 100000 distinct ids of 17/25, above the earlier ones');

# ---- Index builds on a table over 8 MB go parallel at the defaults.
# "with request for N parallel workers" is the leader's DEBUG1 message.
my $debug = 'SET client_min_messages = debug1;';
my $parallel_build = qr/with request for [1-9]\d* parallel workers/;
my (undef, $err) = runs_ok($primary, 'postgres', "$debug CREATE INDEX big_id ON big (id)",
	'parallel CREATE INDEX succeeds');
like($err, $parallel_build, 'CREATE INDEX: the build asked for parallel workers');
(undef, $err) = runs_ok($primary, 'postgres', "$debug REINDEX TABLE big", 'REINDEX TABLE succeeds');
like($err, $parallel_build, 'REINDEX: the build asked for parallel workers');
(undef, $err) = runs_ok($primary, 'postgres', "$debug ALTER TABLE big ADD PRIMARY KEY (id)",
	'ALTER TABLE ADD PRIMARY KEY on a table over 8 MB succeeds');
like($err, $parallel_build, 'ADD PRIMARY KEY: the build asked for parallel workers');
is($primary->safe_psql('postgres',
		q{SELECT count(*) FROM pg_index WHERE indrelid = 'big'::regclass AND indisvalid}),
	'3', 'big has its two indexes and its primary key, all valid');
# Parallel workers took part: their trace_sort lines are in the log.
my $log_offset = -s $primary->logfile;
runs_ok($primary, 'postgres', 'SET trace_sort = on; CREATE INDEX big_id2 ON big (id)',
	'parallel CREATE INDEX with trace_sort succeeds');
like(slurp_file($primary->logfile, $log_offset), qr/parallel worker .*LOG:  begin index sort/,
	'the server log has index sorts in parallel workers');

# ---- VACUUM of a table with two indexes over 512 kB.
$primary->safe_psql('postgres', $setup . q{
CREATE TABLE vt (a int, b int) WITH (autovacuum_enabled = off);
INSERT INTO vt SELECT g, g FROM generate_series(1, 200000) g;
CREATE INDEX vt_a ON vt (a);
CREATE INDEX vt_b ON vt (b);
DELETE FROM vt WHERE a % 10 = 0;
});
(undef, $err) = runs_ok($primary, 'postgres', 'VACUUM (PARALLEL 2, VERBOSE) vt',
	'VACUUM (PARALLEL 2) succeeds');
like($err, qr/launched [1-9]\d* parallel vacuum workers? for index/,
	'VACUUM (PARALLEL 2): parallel vacuum workers launched');
$primary->safe_psql('postgres', "$setup DELETE FROM vt WHERE a % 10 = 1");
(undef, $err) = runs_ok($primary, 'postgres', 'VACUUM (VERBOSE) vt', 'plain VACUUM succeeds');
like($err, qr/launched [1-9]\d* parallel vacuum workers? for index/,
	'plain VACUUM: parallel vacuum workers launched');

# ---- Autovacuum and autoanalyze.
$primary->safe_psql('postgres', $setup . q{
CREATE TABLE av (id bigint DEFAULT snowflake_nextval(), v int) WITH (
  autovacuum_vacuum_threshold = 0, autovacuum_vacuum_scale_factor = 0,
  autovacuum_analyze_threshold = 0, autovacuum_analyze_scale_factor = 0);
CREATE INDEX av_id ON av (id);
INSERT INTO av (v) SELECT g FROM generate_series(1, 2000) g;
DELETE FROM av WHERE v % 2 = 0;
});
ok($primary->poll_query_until('postgres', q{SELECT last_autovacuum IS NOT NULL
  AND last_autoanalyze IS NOT NULL FROM pg_stat_user_tables WHERE relname = 'av'}),
	'autovacuum vacuumed and analyzed the table');

# ---- Logical replication: table-sync and apply workers on a subscriber
# with the library preloaded and an identity of its own; they fill the
# subscriber's DEFAULT snowflake_nextval() column.
my $sub = identity_node('kinds_sub', 17, 26);
$sub->start;
$primary->safe_psql('postgres', q{
CREATE TABLE lr (k int PRIMARY KEY, payload text);
INSERT INTO lr SELECT g, 'initial ' || g FROM generate_series(1, 1000) g;
CREATE PUBLICATION pub_lr FOR TABLE lr;
});
$sub->safe_psql('postgres', q{
CREATE EXTENSION snowflake;
CREATE TABLE lr (k int PRIMARY KEY, payload text,
                 sub_id bigint NOT NULL DEFAULT snowflake_nextval() UNIQUE);
});
my $connstr = $primary->connstr . ' dbname=postgres';
$sub->safe_psql('postgres', "CREATE SUBSCRIPTION sub_lr CONNECTION '$connstr' PUBLICATION pub_lr");
ok($sub->poll_query_until('postgres',
		q{SELECT count(*) = 0 FROM pg_subscription_rel WHERE srsubstate NOT IN ('r', 's')}),
	'logical replication: the table-sync worker copied the table');
$primary->safe_psql('postgres',
	q{INSERT INTO lr SELECT g, 'applied ' || g FROM generate_series(1001, 1500) g});
$primary->wait_for_catchup('sub_lr');
is($sub->safe_psql('postgres', q{
  SELECT count(*) || '|' || count(DISTINCT sub_id) || '|' || string_agg(DISTINCT p.datacenter_id
  || '/' || p.worker_id, ',') || '|' || count(*) FILTER (WHERE payload LIKE 'applied %')
  FROM lr, snowflake_parse(sub_id) p}),
	'1500|1500|17/26|500',
	'logical replication: 1500 rows, each with a distinct id of the subscriber (17/26) from the '
	  . 'table-sync and apply workers');
is($primary->safe_psql('postgres',
		q{SELECT count(*) FROM pg_stat_replication WHERE application_name = 'sub_lr'}),
	'1', 'a logical walsender serves the subscriber');

# ---- A walsender and a hot standby that copied the configuration.
$primary->backup('kinds_backup');
my $standby = PostgreSQL::Test::Cluster->new('kinds_standby');
$standby->init_from_backup($primary, 'kinds_backup', has_streaming => 1);
$standby->start;
$primary->safe_psql('postgres', 'INSERT INTO ids SELECT snowflake_nextval()');
$primary->wait_for_catchup($standby);
is($primary->safe_psql('postgres',
		q{SELECT state FROM pg_stat_replication WHERE application_name = 'kinds_standby'}),
	'streaming', 'a walsender streams to the standby');
is($standby->safe_psql('postgres', 'SHOW snowflake.worker_id'), '25',
	'the standby runs with the copied identity');
($count) = runs_ok($standby, 'postgres', 'SELECT count(*) FROM big', 'standby: a read query runs');
is($count, '1000000', 'standby: the count is right');
($plan) = runs_ok($standby, 'postgres',
	'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM big',
	'standby: EXPLAIN ANALYZE of a parallel query runs');
like($plan, qr/Workers Launched: [1-9]/, 'standby: parallel workers launched') or diag($plan);
$primary->safe_psql('postgres', "$setup DELETE FROM ids WHERE id > $before");
$primary->wait_for_catchup($standby);
my ($standby_decode) = runs_ok($standby, 'postgres', "$parallel $decode",
	'standby: decoding in parallel workers runs');
is($standby_decode, $serial_decode, 'standby: decoding in parallel workers = the primary, serial');

# ---- pg_dump and pg_restore of snowflake-keyed tables, parallel settings at
# their defaults; the big table's index builds go parallel.
$primary->safe_psql('postgres', 'CREATE DATABASE shop');
$primary->safe_psql('shop', $setup . q{
CREATE EXTENSION snowflake;
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), note text NOT NULL);
CREATE INDEX orders_note ON orders (note);
CREATE TABLE events (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), kind text NOT NULL,
                     order_id bigint REFERENCES orders);
CREATE INDEX events_kind ON events (kind);
CREATE INDEX events_made ON events (snowflake_timestamp(id, 1288834974657, 5, 5, 12));
INSERT INTO orders (note) SELECT 'order ' || g FROM generate_series(1, 1000) g;
INSERT INTO events (kind) SELECT md5(g::text) FROM generate_series(1, 300000) g;
});
cmp_ok($primary->safe_psql('shop', q{SELECT pg_relation_size('events')}), '>', 8 * 1024 * 1024,
	'events is over 8 MB');
my $dump = $primary->basedir . '/shop.dump';
$primary->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $primary->connstr('shop') ],
	'pg_dump');
$primary->safe_psql('postgres', 'CREATE DATABASE shop_restored');
$log_offset = -s $primary->logfile;
my ($rout, $rerr) = ('', '');
my $restored;
{
	# The index builds' DEBUG1 messages go to the server log.
	local $ENV{PGOPTIONS} = '-c log_min_messages=debug1';
	$restored = IPC::Run::run(
		[ 'pg_restore', '-d', $primary->connstr('shop_restored'), $dump ],
		'>', \$rout, '2>', \$rerr);
}
ok($restored, 'pg_restore succeeds') or diag("stderr: $rerr");
is($rerr, '', 'pg_restore reports nothing (no errors ignored on restore)');
like(slurp_file($primary->logfile, $log_offset),
	qr/building index "events_[a-z]+" on table "events" with request for [1-9]\d* parallel workers/,
	'pg_restore: the big table\'s index builds asked for parallel workers');
my $schema = q{SELECT string_agg(x, E'\n' ORDER BY x) FROM (
  SELECT pg_get_indexdef(indexrelid) || ' valid=' || indisvalid AS x FROM pg_index
    WHERE indrelid IN ('orders'::regclass, 'events'::regclass)
  UNION ALL SELECT conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid)
    FROM pg_constraint WHERE conrelid IN ('orders'::regclass, 'events'::regclass)
  UNION ALL SELECT 'rows ' || (SELECT count(*) FROM orders) || ' ' || (SELECT count(*) FROM events)
    || ' ' || (SELECT sum(id % 1000003) FROM events)) s};
my $schema_source = $primary->safe_psql('shop', "$setup $schema");
like($schema_source, qr/CREATE INDEX events_kind .* valid=true\n.*events events_pkey PRIMARY KEY/s,
	'the source has its keys and indexes');
is($primary->safe_psql('shop_restored', "$setup $schema"), $schema_source,
	'restored: every index, the primary keys and the foreign key, and every row');

# ---- pg_upgrade --check from a cluster that preloads snowflake and never
# issued an id; the old cluster starts afterwards.
my $old = identity_node('kinds_upg_old', 17, 27);
$old->start;
$old->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$old->stop;
ok(!-e state_path($old), 'the old cluster never issued an id: no snowflake.state');
my $new = identity_node('kinds_upg_new', 17, 27);
my $bindir = $old->config_data('--bindir');
my ($uout, $uerr) = ('', '');
my $cwd = PostgreSQL::Test::Utils::tempdir();
my $upgraded = IPC::Run::run(
	[ 'pg_upgrade', '--check', '-b', $bindir, '-B', $bindir, '-d', $old->data_dir,
	  '-D', $new->data_dir, '-p', $old->port, '-P', $new->port,
	  '-s', PostgreSQL::Test::Utils::tempdir_short() ],
	'>', \$uout, '2>', \$uerr, init => sub { chdir $cwd });
ok($upgraded, 'pg_upgrade --check succeeds') or diag("stdout:\n$uout\nstderr:\n$uerr");
like($uout, qr/Clusters are compatible/, 'pg_upgrade --check: clusters are compatible');
ok($old->start(fail_ok => 1), 'the old cluster starts after pg_upgrade --check')
  or diag(slurp_file($old->logfile));
my ($old_started, $old_id) = try_psql($old, 'postgres', 'SELECT snowflake_nextval()');
ok($old_started && decode_id($old_id)->{worker_id} == 27, 'and issues ids of its node');

# ---- postgres -C and postgres --single, on the stopped subscriber.
$sub->safe_psql('postgres', 'ALTER SUBSCRIPTION sub_lr DISABLE');
$sub->stop;
my $postgres = "$bindir/postgres";
my ($cout, $cerr) = ('', '');
my $c_ok = IPC::Run::run([ $postgres, '-D', $sub->data_dir, '-C', 'snowflake.worker_id' ],
	'>', \$cout, '2>', \$cerr);
ok($c_ok, 'postgres -C snowflake.worker_id exits 0') or diag($cerr);
is($cout, "26\n", 'postgres -C snowflake.worker_id prints the configured value');
($cout, $cerr) = ('', '');
$c_ok = IPC::Run::run([ $postgres, '-D', $sub->data_dir, '-C', 'shared_memory_size' ],
	'>', \$cout, '2>', \$cerr);
ok($c_ok, 'postgres -C shared_memory_size (loads the library) exits 0') or diag($cerr);
like($cout, qr/^\d+\n$/, 'postgres -C shared_memory_size prints a size');

my ($sout, $serr) = ('', '');
my $input = "SHOW snowflake.worker_id\nSELECT 12345 AS single_user_ok\n"
  . "SELECT snowflake_nextval()\nSELECT 67890 AS after_nextval\n";
my $t0 = time;
my $single = IPC::Run::run([ $postgres, '--single', '-D', $sub->data_dir, 'postgres' ],
	'<', \$input, '>', \$sout, '2>', \$serr);
my $elapsed = time - $t0;
note sprintf("postgres --single took %.2f s; stdout:\n%s\nstderr:\n%s", $elapsed, $sout, $serr);
ok($single, 'postgres --single exits 0 (no crash)');
like($sout, qr/snowflake\.worker_id = "26"/, 'postgres --single: the configured worker id');
like($sout, qr/single_user_ok = "12345".*after_nextval = "67890"/s,
	'postgres --single runs statements before and after snowflake_nextval');
cmp_ok($elapsed, '<', 5, 'postgres --single with snowflake_nextval finishes well under 10 s');
unlike($sout . $serr, qr/PANIC|terminated by signal/, 'postgres --single: no PANIC, no crash');

done_testing();
