# pg_upgrade from an older PostgreSQL (SNOWFLAKE_OLD_INSTALL: in the root of
# 17, Debian 12's 15, copied into it with its libraries by run-all.sh; in the
# root of 19, Debian unstable's 18) to the PostgreSQL under test, of a node
# that has issued ids and runs ahead of its clock under `borrow`.
#
# pg_upgrade copies the tables but not snowflake.state, the high-water mark of
# the ids issued.  The extension leaves a marker (snowflake.pg_upgrade) in the
# new data directory while pg_upgrade loads it there, and a normal start
# refuses while the marker is there and snowflake.state is not.  Checked:
#   - both ways pg_upgrade loads the library into the new cluster (preloaded
#     by its configuration, as Debian's pg_upgradecluster does; or only by
#     pg_upgrade's LOAD check) leave the marker;
#   - forgetting the copy: the server refuses to start, naming the file;
#   - after copying the old snowflake.state: every new id is above every id
#     the old cluster issued, with the clock still 10 minutes behind them;
#   - the control: started without the mark (marker removed by hand), the
#     same clock gives ids below the old ones, which is what the guard stops;
#   - snowflake.state copied in before pg_upgrade (as Debian's
#     pg_upgradecluster hook does) still leaves the marker, and the first
#     start refuses a node identity other than the one it records (a
#     configuration written anew for the new major), naming both; with the
#     old identity it starts, removes the marker, and issues ids above the
#     old ones under that identity.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../t";
use File::Copy qw(copy);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest;

my $old_install = $ENV{SNOWFLAKE_OLD_INSTALL} // '/usr/lib/postgresql/15';
-x "$old_install/bin/postgres"
  or BAIL_OUT("no old PostgreSQL at $old_install (run-all.sh copies Debian 12's PostgreSQL 15 there)");
my ($old_major) = $old_install =~ m{/(\d+)/?$}
  or BAIL_OUT("SNOWFLAKE_OLD_INSTALL ($old_install) does not end in the major");

my $node_conf = <<'EOC';
snowflake.datacenter_id = 17
snowflake.worker_id = 25
snowflake.clock_backward_policy = borrow
snowflake.max_clock_backward_ms = '20min'
EOC

# ---- The old cluster: ids issued, then the clock stepped back 10 minutes and
# more ids issued ahead of it (borrow).
my $old = PostgreSQL::Test::Cluster->new("old$old_major", install_path => $old_install);
$old->init;
$old->append_conf('postgresql.conf', "shared_preload_libraries = 'snowflake'\n$node_conf");
set_clock($old, '+0');
start_node($old, faketime => 1);
like($old->safe_psql('postgres', 'SELECT version()'), qr/^PostgreSQL $old_major\./,
	"the old cluster runs PostgreSQL $old_major");
$old->safe_psql('postgres', 'CREATE DATABASE shop');
$old->safe_psql('shop', <<'EOS');
CREATE EXTENSION snowflake;
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), item text NOT NULL);
INSERT INTO orders (item) SELECT 'before the step ' || g FROM generate_series(1, 1000) g;
EOS
# A second database issues ids too: the mark is the server's, not a database's.
$old->safe_psql('postgres', 'CREATE EXTENSION snowflake');
$old->safe_psql('postgres', 'CREATE TABLE t (id bigint PRIMARY KEY DEFAULT snowflake_nextval())');
$old->safe_psql('postgres', 'INSERT INTO t SELECT FROM generate_series(1, 1000)');

set_clock($old, '-10m');
cmp_ok(server_unix_ms($old), '<', now_unix_ms() - 9 * 60 * 1000, "the old node's clock is 10 minutes behind");
$old->safe_psql('shop', q{INSERT INTO orders (item) SELECT 'after the step ' || g FROM generate_series(1, 1000) g});
my $ahead = status($old, 'borrowed_ahead_ms');
cmp_ok($ahead, '>', 9 * 60 * 1000, "the old node runs ahead of its clock under borrow ($ahead ms)");
my $old_max = $old->safe_psql('shop', 'SELECT max(id) FROM orders');
my $old_max_t = $old->safe_psql('postgres', 'SELECT max(id) FROM t');
$old_max = $old_max_t if $old_max_t > $old_max;
my $old_rows = $old->safe_psql('shop', 'SELECT count(*), sum(id) FROM orders');
my $extversion = $old->safe_psql('shop', "SELECT extversion FROM pg_extension WHERE extname = 'snowflake'");
$old->stop;
ok(-f state_path($old), 'the old cluster has its snowflake.state');
note "old cluster: max id $old_max, orders (count|sum) $old_rows, extension $extversion";

# pg_upgrade from the old cluster into $new (copy mode: the old one stays).
sub run_pg_upgrade
{
	my ($new) = @_;
	my $sock = PostgreSQL::Test::Utils::tempdir_short();
	my $cwd = PostgreSQL::Test::Utils::tempdir();
	my @cmd = (
		'pg_upgrade', '--no-sync',
		'-b', "$old_install/bin", '-B', $new->config_data('--bindir'),
		'-d', $old->data_dir, '-D', $new->data_dir,
		'-p', $old->port, '-P', $new->port, '-s', $sock);
	note "running @cmd";
	my ($stdout, $stderr);
	my $ok = IPC::Run::run(\@cmd, '>', \$stdout, '2>', \$stderr, init => sub { chdir $cwd });
	ok($ok, 'pg_upgrade ' . $new->name . ' succeeds')
	  or diag("stdout:\n$stdout\nstderr:\n$stderr");
}

sub marker_path { return $_[0]->data_dir . '/snowflake.pg_upgrade'; }

sub new_cluster
{
	my ($name, $preload) = @_;
	my $n = PostgreSQL::Test::Cluster->new($name);
	$n->init;
	$n->append_conf('postgresql.conf',
		($preload ? "shared_preload_libraries = 'snowflake'\n" : '') . $node_conf);
	set_clock($n, '+0');
	return $n;
}

# ---- A: preloaded by its configuration during the upgrade.
my $a = new_cluster('new_preloaded', 1);
run_pg_upgrade($a);
ok(-f marker_path($a), 'A: pg_upgrade left snowflake.pg_upgrade (library preloaded during the upgrade)');
ok(!-f state_path($a), 'A: pg_upgrade did not copy snowflake.state');

# Forgot the step: the server refuses to start.
set_clock($a, '-10m');
my $log_offset = -s $a->logfile // 0;
ok(!start_node($a, faketime => 1, fail_ok => 1), 'A without snowflake.state: the server refuses to start');
my $log = substr(slurp_file($a->logfile), $log_offset);
like($log, qr/FATAL:  snowflake state file "snowflake\.state" is missing after pg_upgrade/,
	'A: the log names the missing file');
like($log, qr/HINT:  Copy "snowflake\.state" from the old cluster's data directory/, 'A: the HINT says what to do');
ok(-f marker_path($a), 'A: the marker stays until the state file is there');

# The documented step: copy snowflake.state from the old data directory.
copy(state_path($old), state_path($a)) or die "copy: $!";
chmod 0600, state_path($a);
start_node($a, faketime => 1);
ok(!-f marker_path($a), 'A with the old snowflake.state: starts, and removes the marker');
is($a->safe_psql('shop', 'SELECT count(*), sum(id) FROM orders'), $old_rows, 'A: every row and id came along');
is($a->safe_psql('shop', "SELECT extversion FROM pg_extension WHERE extname = 'snowflake'"), $extversion,
	"A: extension version $extversion");
$a->safe_psql('shop', q{INSERT INTO orders (item) SELECT 'upgraded ' || g FROM generate_series(1, 1000) g});
$a->safe_psql('postgres', 'INSERT INTO t SELECT FROM generate_series(1, 1000)');
my ($new_min, $new_n) = split /\|/, $a->safe_psql('shop', q{SELECT min(id), count(*) FROM orders WHERE item LIKE 'upgraded %'});
is($new_n, 1000, 'A: 1000 new rows');
cmp_ok($new_min, '>', $old_max, 'A: every new id is above every id the old cluster issued (clock 10 min behind them)');
is($a->safe_psql('postgres', "SELECT count(*) FROM t"), 2000, 'A: the second database has its old and new rows');
is($a->safe_psql('postgres', "SELECT count(*) FROM t WHERE id <= $old_max"), 1000,
	'A: ... and no new id there at or below the old maximum either');
is($a->safe_psql('shop', q{SELECT count(*) FROM orders o, LATERAL snowflake_parse(o.id) p
                           WHERE (p.datacenter_id, p.worker_id) <> (17, 25)}), 0,
	'A: every id decodes to datacenter 17, worker 25');
$a->stop;

# ---- B: not preloaded during the upgrade (pg_upgrade only LOADs the library),
# preloaded afterwards.
my $b = new_cluster('new_loaded', 0);
run_pg_upgrade($b);
ok(-f marker_path($b), "B: pg_upgrade's LOAD check left snowflake.pg_upgrade");
$b->append_conf('postgresql.conf', "shared_preload_libraries = 'snowflake'\n");
set_clock($b, '-10m');
ok(!start_node($b, faketime => 1, fail_ok => 1), 'B without snowflake.state: the server refuses to start');

# The control: the marker removed by hand and no mark, the same clock issues
# ids below the old cluster's -- what the refusal prevents.
unlink marker_path($b) or die $!;
start_node($b, faketime => 1);
$b->safe_psql('shop', q{INSERT INTO orders (item) SELECT 'unguarded ' || g FROM generate_series(1, 1000) g});
my $below = $b->safe_psql('shop', "SELECT count(*) FROM orders WHERE item LIKE 'unguarded %' AND id <= $old_max");
is($below, 1000, 'control: without the mark, all 1000 new ids are at or below the old maximum');
$b->stop;

# ---- C: snowflake.state copied in before pg_upgrade, and the configuration
# written anew for the new major with another worker id.
my $c = new_cluster('new_other_identity', 1);
copy(state_path($old), state_path($c)) or die "copy: $!";
chmod 0600, state_path($c);
run_pg_upgrade($c);
ok(-f marker_path($c), 'C: with snowflake.state there already, pg_upgrade still leaves the marker');
$c->append_conf('postgresql.conf', "snowflake.worker_id = 1
");
set_clock($c, '-10m');
$log_offset = -s $c->logfile // 0;
ok(!start_node($c, faketime => 1, fail_ok => 1), 'C under worker 1: the server refuses to start');
$log = substr(slurp_file($c->logfile), $log_offset);
like($log, qr/FATAL:  snowflake node identity differs from the one "snowflake\.state" records after pg_upgrade/,
	'C: the log says the identity differs');
like($log, qr/DETAIL:  "snowflake\.state" records datacenter 17 worker 25; this server is configured with datacenter 17 worker 1\./,
	'C: ... naming both identities');
like($log, qr/HINT:  Set snowflake\.datacenter_id = 17 and snowflake\.worker_id = 25/, 'C: the HINT gives the old one');
ok(-f marker_path($c), 'C: the marker stays');
$c->append_conf('postgresql.conf', "snowflake.worker_id = 25
");
start_node($c, faketime => 1);
ok(!-f marker_path($c), 'C under the old identity: starts, and removes the marker');
$c->safe_psql('shop', q{INSERT INTO orders (item) SELECT 'upgraded ' || g FROM generate_series(1, 1000) g});
($new_min, $new_n) = split /\|/, $c->safe_psql('shop', q{SELECT min(id), count(*) FROM orders WHERE item LIKE 'upgraded %'});
is($new_n, 1000, 'C: 1000 new rows');
cmp_ok($new_min, '>', $old_max, 'C: every new id is above every id the old cluster issued');
is($c->safe_psql('shop', q{SELECT count(*) FROM orders o, LATERAL snowflake_parse(o.id) p
                           WHERE (p.datacenter_id, p.worker_id) <> (17, 25)}), 0,
	'C: every id decodes to datacenter 17, worker 25');
$c->stop;

done_testing();
