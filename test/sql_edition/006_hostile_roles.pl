# The SQL edition among hostile roles (plain script, no pg_tle needed): a
# role that may create in the install schema makes a shadow of every
# operator and function the edition's code could call, for the argument
# types it uses, in that schema and in one of its own
# (hostile_shadows.sql, made from the catalog; each shadow records that it
# ran); then every function of the edition, the view, the operator and the
# paths that make ids (a new configuration that rewrites the fast path
# included) run as the owner, as a superuser and as an application role,
# with the hostile schema first in search_path (hostile_calls.sql).  No
# shadow may run.  Also: the grants an application role needs (and no
# more), and that the hostile role cannot make a cast between built-in types.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use lib "$FindBin::RealBin/../t";
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest qw(start_node);
use SqlEditionTest;

my $node = plain_node('hostile');
start_node($node);

add_role($node, 'owner1', 'CREATE SCHEMA ids AUTHORIZATION owner1');
add_role($node, 'hostile', 'GRANT USAGE, CREATE ON SCHEMA ids TO hostile',
	'CREATE SCHEMA hostile AUTHORIZATION hostile', 'CREATE SCHEMA hostile_tools AUTHORIZATION hostile');
add_role($node, 'app');
install_plain($node, 'postgres', 'owner1', 'ids');
safe_psql_as($node, 'postgres', 'owner1', 'SELECT ids.snowflake_configure(worker_id => 3)');
my $first = safe_psql_as($node, 'postgres', 'owner1', 'SELECT ids.snowflake_nextval()');

# ---- what an application role needs ---------------------------------------
my ($ret, $out, $err) = psql_as($node, 'postgres', 'app', 'SELECT ids.snowflake_nextval()');
like($err, qr/permission denied for schema ids/, 'a role without grants makes no ids');
safe_psql_as($node, 'postgres', 'owner1', 'GRANT USAGE ON SCHEMA ids TO app');
($ret, $out, $err) = psql_as($node, 'postgres', 'app', 'SELECT ids.snowflake_nextval()');
like($err, qr/permission denied for (sequence snowflake_sql_counter|function snowflake_sql_next_slow)/,
	'... nor with USAGE on the schema alone: PUBLIC may not count');
($ret, $out, $err) = psql_as($node, 'postgres', 'app', 'SELECT ids.snowflake_sql_next_slow()');
like($err, qr/permission denied for function snowflake_sql_next_slow/, '... nor call the slow path');
is(safe_psql_as($node, 'postgres', 'app', "SELECT ids.snowflake_encode(ids.snowflake_decode('2Wf8vH4EGF0'))"),
	'2Wf8vH4EGF0', '... but decodes');
like(safe_psql_as($node, 'postgres', 'app', 'SELECT worker_id, last_id > 0 FROM ids.snowflake_status'),
	qr/^3\|t$/, '... and reads snowflake_status');
safe_psql_as($node, 'postgres', 'owner1', doc_block('app-grants.sql'));
cmp_ok(safe_psql_as($node, 'postgres', 'app', 'SELECT ids.snowflake_nextval()'), '>', $first,
	'with the grants docs/managed.md shows, it makes ids');
($ret, $out, $err) = psql_as($node, 'postgres', 'app', "SELECT pg_catalog.setval('ids.snowflake_sql_counter', 1)");
like($err, qr/permission denied for sequence snowflake_sql_counter/, '... and still cannot set the counter');

# ---- the hostile role's shadows -------------------------------------------
($ret, $out, $err) = psql_as($node, 'postgres', 'hostile',
	'CREATE FUNCTION hostile.n2i(numeric) RETURNS integer LANGUAGE sql RETURN 0; '
	  . 'CREATE CAST (numeric AS integer) WITH FUNCTION hostile.n2i(numeric) AS IMPLICIT');
like($err, qr/must be owner of type numeric or type integer/,
	'a role cannot make a cast between built-in types (so casts need no shadow)');

sub psql_file
{
	my ($role, $file, %vars) = @_;
	my @cmd = ($node->installed_command('psql'), '-X', '-d', $node->connstr('postgres'), '-U', $role,
		(map { ('-v', "$_=$vars{$_}") } sort keys %vars), '-f', "$FindBin::RealBin/$file");
	my $o;
	IPC::Run::run(\@cmd, '>', \$o, '2>&1');
	return $o;
}

$out = psql_file('hostile', 'hostile_shadows.sql', edition => 'ids', hostile => 'hostile',
	tools => 'hostile_tools');
unlike($out, qr/ERROR/, 'hostile_shadows.sql ran') or diag $out;
my $made = $node->safe_psql('postgres', 'SELECT count(*) FROM hostile_tools.shadows');
cmp_ok($made, '>', 1000, "the hostile role made $made shadows");
# The ones the review found, among them.
for my $sig ('*(numeric,integer)', '/(integer,numeric)', '*(double precision,integer)',
	'-(double precision,numeric)', '%(bigint,integer)', '=(oid,regclass)')
{
	my ($name, $l, $r) = $sig =~ /^(.+)\((.+),(.+)\)$/;
	is($node->safe_psql('postgres',
			"SELECT count(*) FROM pg_operator WHERE oprname = '$name' AND oprleft = '$l'::regtype "
			  . "AND oprright = '$r'::regtype AND oprnamespace = 'ids'::regnamespace"),
		'1', "... operator $sig in the install schema");
}
is($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_proc WHERE proname = 'concat_ws' AND pronamespace = 'ids'::regnamespace "
		  . "AND proargtypes = '25 25 25 25 25'::oidvector"),
	'1', '... concat_ws(text, text, text, text, text) (pg_catalog\'s is VARIADIC "any")');

# The polymorphic helpers of 1.6 would lose to these (an exact match).
cmp_ok($node->safe_psql('postgres',
		"SELECT count(*) FROM hostile_tools.shadows WHERE what ~ '^function ids[.]snowflake_'"),
	'>', 100, "... among them overloads of the edition's own functions");

# ---- the update refuses while they are there ---------------------------------
my $before = $node->safe_psql('postgres',
	"SELECT md5(string_agg(p.oid::regprocedure::text || pg_get_functiondef(p.oid), '' ORDER BY 1))
     FROM pg_proc p WHERE p.pronamespace = 'ids'::regnamespace AND p.proowner = 'owner1'::regrole");
eval { install_plain($node, 'postgres', 'owner1', 'ids'); };
like($@, qr/snowflake_sql: function ids\.snowflake\S+ belongs to role hostile, not to owner1/,
	'running the install script again (the update) refuses, naming an object and its owner');
is($node->safe_psql('postgres',
		"SELECT md5(string_agg(p.oid::regprocedure::text || pg_get_functiondef(p.oid), '' ORDER BY 1))
         FROM pg_proc p WHERE p.pronamespace = 'ids'::regnamespace AND p.proowner = 'owner1'::regrole"),
	$before, '... and changes none of the edition\'s functions');
# A first install into a schema where the role's objects sit refuses too.
add_role($node, 'owner2', 'CREATE SCHEMA ids2 AUTHORIZATION owner2',
	'GRANT USAGE, CREATE ON SCHEMA ids2 TO hostile');
safe_psql_as($node, 'postgres', 'hostile',
	'CREATE FUNCTION ids2.snowflake_sql_invalid_id(timestamptz, bigint) RETURNS timestamptz '
	  . 'LANGUAGE sql RETURN NULL::timestamptz');
eval { install_plain($node, 'postgres', 'owner2', 'ids2'); };
like($@, qr/function ids2\.snowflake_sql_invalid_id\(timestamp with time zone,bigint\) belongs to role hostile, not to owner2/,
	'a first install refuses another role\'s function under an edition name');
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_proc WHERE pronamespace = 'ids2'::regnamespace"),
	'1', '... and installs nothing');

# ---- every function, as each role --------------------------------------------
for my $role ('owner1', 'postgres', 'app')
{
	$out = psql_file($role, 'hostile_calls.sql', edition => 'ids', hostile => 'hostile');
	like($out, qr/enough calls\s*\n-+\n\s*t\n/, "as $role: the calls made from the catalog")
	  or diag $out;
	my $n = () = $out =~ /^\s*3000$/mg;
	cmp_ok($n, '>=', 3, "... and ids made in batches ($n of 3,000)");
	my @ran = $out =~ /(hostile shadow ran: [^\n]*)/g;
	is(scalar(@ran), 0, "... and no shadow ran") or diag join("\n", (sort @ran)[0 .. 20]);
}
is($node->safe_psql('postgres', "SELECT pg_sequence_last_value('hostile_tools.shadow_runs') IS NULL"),
	't', 'no shadow counted a run');
like(safe_psql_as($node, 'postgres', 'owner1', 'SELECT (ids.snowflake_parse(ids.snowflake_nextval())).worker_id'),
	qr/^3$/, 'the node still makes its own ids');

$node->stop;
done_testing();
