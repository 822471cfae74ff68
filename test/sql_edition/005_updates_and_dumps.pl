# The SQL edition over time, on a managed server, as a role that is not a
# superuser:
#   - an update through pg_tle: a later version's dist file registers the
#     version and an update path from the earlier one (install_update_path);
#     ALTER EXTENSION snowflake_sql UPDATE keeps the node's configuration and
#     its ids increasing, and the configuration is baked into the new
#     functions again;
#   - pg_dump and pg_restore of a database with the extension: the identity
#     comes back with it, the restored node makes ids at once (its functions
#     are baked from the restored configuration), and the copy can be given
#     a new identity.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use lib "$FindBin::RealBin/../t";
use File::Path qw(make_path);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest qw(decode_id start_node max min);
use SqlEditionTest;

my $node = managed_node('updates');
start_node($node);
$node->safe_psql('postgres', 'CREATE EXTENSION pg_tle');
add_role($node, 'app', 'GRANT pgtle_admin TO app', 'CREATE SCHEMA app AUTHORIZATION app');

# Two versions of the edition, from this tree: 9.0 and 9.1 (with an update
# path from 9.0).
my $dir = $node->basedir;
make_path("$dir/v90", "$dir/v91");
make_dist("$dir/v90", '9.0');
make_dist("$dir/v91", '9.1', '9.0');

SqlEditionTest::run_file_as($node, 'postgres', 'app', "$dir/v90/snowflake_sql_pg_tle.sql");
safe_psql_as($node, 'postgres', 'app', 'CREATE EXTENSION snowflake_sql');
safe_psql_as($node, 'postgres', 'app',
	"SELECT snowflake_configure(worker_id => 21, datacenter_id => 3, epoch_ms => 1420070400000, clock_backward_policy => 'wait', max_clock_backward_ms => 1234)");
my @old = split /\n/, safe_psql_as($node, 'postgres', 'app', 'SELECT snowflake_nextval() FROM generate_series(1, 3000)');
is(safe_psql_as($node, 'postgres', 'app', 'SELECT snowflake_sql_version()'), '9.0', 'version 9.0 installed');

SqlEditionTest::run_file_as($node, 'postgres', 'app', "$dir/v91/snowflake_sql_pg_tle.sql");
is($node->safe_psql('postgres', "SELECT path FROM pgtle.extension_update_paths('snowflake_sql') WHERE source = '9.0' AND target = '9.1'"),
	'9.0--9.1', 'the 9.1 file registers an update path from 9.0');
is(safe_psql_as($node, 'postgres', 'app', 'ALTER EXTENSION snowflake_sql UPDATE; SELECT extversion FROM pg_extension WHERE extname = \'snowflake_sql\''),
	'9.1', 'ALTER EXTENSION snowflake_sql UPDATE, by its owner, to 9.1');
is(safe_psql_as($node, 'postgres', 'app', 'SELECT snowflake_sql_version()'), '9.1', '... whose functions are in place');
is(safe_psql_as($node, 'postgres', 'app',
		'SELECT datacenter_id, worker_id, clock_backward_policy, max_clock_backward_ms FROM snowflake_status'),
	'3|21|wait|1234', '... the configuration kept');
my @new = split /\n/, safe_psql_as($node, 'postgres', 'app', 'SELECT snowflake_nextval() FROM generate_series(1, 3000)');
ok(increasing(@old, @new), '... and the ids go on increasing');
is(decode_id($new[0])->{worker_id}, 21, '... under the identity');
like(safe_psql_as($node, 'postgres', 'app', "SELECT prosrc FROM pg_proc WHERE oid = 'snowflake_nextval'::regproc"),
	qr/pg_sequence_last_value.*nextval.*1420070400000\b.*<<\) 22.*snowflake_sql_next_slow/s,
	'... and snowflake_nextval() is baked again, with the epoch and layout in it');

# ---- pg_dump and pg_restore --------------------------------------------------
safe_psql_as($node, 'postgres', 'app', <<'EOS');
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), item text);
INSERT INTO orders (item) SELECT 'x' FROM generate_series(1, 500);
EOS
my $dump = "$dir/db.dump";
$node->command_ok([ $node->installed_command('pg_dump'), '-Fc', '-f', $dump, '-d', $node->connstr('postgres') ],
	'pg_dump of the database');
$node->safe_psql('postgres', 'CREATE DATABASE copy');
# pg_restore as the superuser: the dump creates pg_tle itself.
$node->command_ok([ $node->installed_command('pg_restore'), '-d', $node->connstr('copy'), $dump ],
	'pg_restore into a new database');
is($node->safe_psql('copy', 'SELECT datacenter_id, worker_id, clock_backward_policy FROM app.snowflake_status'),
	'3|21|wait', 'the restored database has the node\'s configuration');
is($node->safe_psql('copy', 'SELECT count(*) FROM app.orders'), '500', '... and its rows');
# (As the superuser: app is now a role without the grants of the objects.)
like($node->safe_psql('copy', "SELECT prosrc FROM pg_proc WHERE oid = 'app.snowflake_nextval'::regproc"),
	qr/1420070400000\b.*<<\) 22/s, '... snowflake_nextval() baked from the restored configuration (its epoch)');
# CREATE EXTENSION in the dump ran as the restoring role: the objects are
# its own now, and it configures the copy.
is($node->safe_psql('copy', "SELECT extowner::regrole FROM pg_extension WHERE extname = 'snowflake_sql'"),
	'postgres', '... created by the role that restored it');
$node->safe_psql('copy', 'SELECT app.snowflake_configure(worker_id => 22, datacenter_id => 3, epoch_ms => 1420070400000)');
my $id = $node->safe_psql('copy', "INSERT INTO app.orders (item) VALUES ('copy') RETURNING id");
is(decode_id($id)->{worker_id}, 22, 'the copy, given its own identity, makes ids with it');
cmp_ok($id, '>', max(@new), '... above the dumped ones');
$node->stop;
done_testing();
