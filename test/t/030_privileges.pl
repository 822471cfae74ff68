# Privileges: only the server's configuration (postgresql.conf, or ALTER
# SYSTEM by a superuser or a role a superuser delegated it to) sets the node
# identity and the clock policy -- no session, role or database owner can
# give itself another one.  The id functions can be revoked from PUBLIC and
# granted to a role, and a column DEFAULT follows the inserting role's grant.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('privileges');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'snowflake'");
$node->append_conf('postgresql.conf', 'snowflake.datacenter_id = 3');
$node->append_conf('postgresql.conf', 'snowflake.worker_id = 9');
# Not the default (borrow), so that a change by anyone would show.
$node->append_conf('postgresql.conf', "snowflake.clock_backward_policy = 'error'");
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION snowflake;
	CREATE ROLE plain LOGIN;
	CREATE ROLE dbowner LOGIN;
	CREATE ROLE ops LOGIN;
});
$node->safe_psql('postgres', 'CREATE DATABASE ownerdb OWNER dbowner');
$node->safe_psql('ownerdb', 'CREATE EXTENSION snowflake');

# Runs $sql as $user in $db; returns (exit code, stdout, stderr).
sub run_as
{
	my ($user, $db, $sql) = @_;
	my ($ret, $out, $err) = $node->psql($db, $sql, extra_params => [ '-U', $user ]);
	return ($ret, $out, $err);
}

sub refused
{
	my ($user, $db, $sql, $re) = @_;
	my ($ret, $out, $err) = run_as($user, $db, $sql);
	isnt($ret, 0, "$user: \"$sql\" is refused");
	like($err, $re, "$user: \"$sql\" says why");
}

# The node the ids of a fresh session of $user carry.
sub node_of_new_id
{
	my ($user, $db) = @_;
	my ($ret, $out, $err) = run_as($user, $db,
		'SELECT datacenter_id || \'/\' || worker_id FROM snowflake_parse(snowflake_nextval())');
	return $ret == 0 ? $out : "error: $err";
}

my $cannot_now = sub { qr/parameter "\Q$_[0]\E" cannot be changed now/ };

# --- No session can change the node identity or the policy -------------------
my %values = (
	'snowflake.worker_id'              => "'3'",
	'snowflake.datacenter_id'          => "'1'",
	'snowflake.clock_backward_policy'  => "'borrow'",
	'snowflake.max_clock_backward_ms'  => "'5'",
	'snowflake.random_sequence_start'  => "'on'",
);
foreach my $name (sort keys %values)
{
	my $v = $values{$name};
	refused('plain', 'postgres', "SET $name = $v", $cannot_now->($name));
	refused('plain', 'postgres', "BEGIN; SET LOCAL $name = $v; COMMIT",
		$cannot_now->($name));
	refused('plain', 'postgres', "SELECT set_config('$name', $v, false)",
		$cannot_now->($name));
	refused('plain', 'postgres', "ALTER ROLE plain SET $name = $v", $cannot_now->($name));
	refused('dbowner', 'ownerdb', "ALTER DATABASE ownerdb SET $name = $v",
		$cannot_now->($name));
	refused('dbowner', 'ownerdb', "ALTER ROLE dbowner IN DATABASE ownerdb SET $name = $v",
		$cannot_now->($name));
	refused('plain', 'postgres', "ALTER SYSTEM SET $name = $v",
		qr/permission denied to set parameter "\Q$name\E"/);
	refused('dbowner', 'ownerdb', "ALTER SYSTEM SET $name = $v",
		qr/permission denied to set parameter "\Q$name\E"/);
}
# The layout needs a restart: no session changes it either.
refused('plain', 'postgres', "SET snowflake.epoch = '0'",
	qr/parameter "snowflake.epoch" cannot be changed without restarting the server/);
refused('plain', 'postgres', 'SET snowflake.worker_bits = 6',
	qr/parameter "snowflake.worker_bits" cannot be changed without restarting the server/);
refused('plain', 'postgres', 'ALTER SYSTEM SET snowflake.epoch = 0',
	qr/permission denied to set parameter "snowflake.epoch"/);

# Not at connection time either (options in the startup packet).
{
	local $ENV{PGOPTIONS} = '-c snowflake.worker_id=3';
	my ($ret, $out, $err) = run_as('plain', 'postgres', 'SHOW snowflake.worker_id');
	isnt($ret, 0, 'PGOPTIONS -c snowflake.worker_id=3 is refused');
	like($err, $cannot_now->('snowflake.worker_id'), 'PGOPTIONS refusal names the setting');
}

# Even a superuser cannot tie another identity to a role or database: only the
# server-wide configuration holds one.
refused('postgres', 'postgres', 'ALTER ROLE plain SET snowflake.worker_id = 3',
	$cannot_now->('snowflake.worker_id'));
refused('postgres', 'postgres', 'ALTER DATABASE ownerdb SET snowflake.worker_id = 3',
	$cannot_now->('snowflake.worker_id'));

# A SET privilege on the parameter does not help: it is not a session setting.
$node->safe_psql('postgres', 'GRANT SET ON PARAMETER snowflake.worker_id TO plain');
refused('plain', 'postgres', 'SET snowflake.worker_id = 3', $cannot_now->('snowflake.worker_id'));
$node->safe_psql('postgres', 'REVOKE SET ON PARAMETER snowflake.worker_id FROM plain');

is($node->safe_psql('postgres',
		q{SELECT count(*) FROM pg_db_role_setting, unnest(setconfig) AS c WHERE c LIKE 'snowflake.%'}),
	'0', 'no role or database setting of snowflake.* was stored');
is(node_of_new_id('plain', 'postgres'), '3/9', 'ids of a plain role still carry the configured node');
is(node_of_new_id('dbowner', 'ownerdb'), '3/9', 'ids of the database owner still carry the configured node');
is($node->safe_psql('postgres', 'SELECT clock_backward_policy FROM snowflake_status'),
	'error', 'the policy is still the configured one');

# --- ALTER SYSTEM by a superuser, applied by a reload ---------------------------
sub reload_until
{
	my ($query) = @_;
	$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
	return $node->poll_query_until('postgres', $query);
}

$node->safe_psql('postgres', 'ALTER SYSTEM SET snowflake.worker_id = 11');
$node->safe_psql('postgres', "ALTER SYSTEM SET snowflake.clock_backward_policy = 'borrow'");
ok(reload_until(q{SELECT worker_id = 11 AND clock_backward_policy = 'borrow' FROM snowflake_status}),
	'superuser ALTER SYSTEM + reload changes the worker id and the policy');
is(node_of_new_id('plain', 'postgres'), '3/11', 'new ids carry the worker id set by ALTER SYSTEM');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET snowflake.worker_id');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET snowflake.clock_backward_policy');
ok(reload_until(q{SELECT worker_id = 9 AND clock_backward_policy = 'error' FROM snowflake_status}),
	'ALTER SYSTEM RESET + reload restores postgresql.conf');
is(node_of_new_id('plain', 'postgres'), '3/9', 'ids carry the configured node again');

# A superuser can delegate ALTER SYSTEM of one setting (PostgreSQL 15).
$node->safe_psql('postgres',
	'GRANT ALTER SYSTEM ON PARAMETER snowflake.clock_backward_policy TO ops');
my ($ret, $out, $err) = run_as('ops', 'postgres',
	"ALTER SYSTEM SET snowflake.clock_backward_policy = 'wait'");
is($ret, 0, 'a role granted ALTER SYSTEM on the policy can set it') or diag($err);
refused('ops', 'postgres', 'ALTER SYSTEM SET snowflake.worker_id = 3',
	qr/permission denied to set parameter "snowflake.worker_id"/);
ok(reload_until(q{SELECT clock_backward_policy = 'wait' FROM snowflake_status}),
	'the delegated policy change applies on reload');
run_as('ops', 'postgres', 'ALTER SYSTEM RESET snowflake.clock_backward_policy');
$node->safe_psql('postgres',
	'REVOKE ALTER SYSTEM ON PARAMETER snowflake.clock_backward_policy FROM ops');
ok(reload_until(q{SELECT clock_backward_policy = 'error' FROM snowflake_status}),
	'policy back to the configured one');

# --- REVOKE from PUBLIC, GRANT to a role ---------------------------------------
$node->safe_psql('postgres', q{
	REVOKE EXECUTE ON FUNCTION snowflake_nextval() FROM PUBLIC;
	REVOKE EXECUTE ON FUNCTION snowflake_generate(integer) FROM PUBLIC;
	CREATE ROLE id_users NOLOGIN;
	CREATE ROLE idapp LOGIN IN ROLE id_users;
	GRANT EXECUTE ON FUNCTION snowflake_nextval() TO id_users;
	GRANT EXECUTE ON FUNCTION snowflake_generate(integer) TO id_users;
	CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), note text);
	GRANT SELECT, INSERT ON orders TO plain, idapp;
});

refused('plain', 'postgres', 'SELECT snowflake_nextval()',
	qr/permission denied for function snowflake_nextval/);
refused('plain', 'postgres', 'SELECT * FROM snowflake_generate(3)',
	qr/permission denied for function snowflake_generate/);
refused('plain', 'postgres', q{INSERT INTO orders (note) VALUES ('by plain')},
	qr/permission denied for function snowflake_nextval/);
($ret, $out, $err) = run_as('plain', 'postgres',
	'SELECT worker_id FROM snowflake_parse(910499571847892992)');
is($out, '25', 'a role without EXECUTE on nextval can still decode ids');

($ret, $out, $err) = run_as('idapp', 'postgres', 'SELECT snowflake_nextval() > 0');
is($out, 't', 'a role granted EXECUTE (through a group) gets ids') or diag($err);
($ret, $out, $err) = run_as('idapp', 'postgres', 'SELECT count(*) FROM snowflake_generate(3)');
is($out, '3', 'and batches') or diag($err);
($ret, $out, $err) = run_as('idapp', 'postgres',
	q{INSERT INTO orders (note) VALUES ('by idapp') RETURNING (snowflake_parse(id)).worker_id});
is($out, '9', 'an INSERT by the granted role fills the DEFAULT with an id') or diag($err);
# A plain INSERT that supplies the id itself needs no EXECUTE.
($ret, $out, $err) = run_as('plain', 'postgres', q{INSERT INTO orders VALUES (42, 'explicit')});
is($ret, 0, 'plain may insert a row that does not use the DEFAULT') or diag($err);
is($node->safe_psql('postgres', q{SELECT string_agg(note, ',' ORDER BY note) FROM orders}),
	'by idapp,explicit', 'only the permitted inserts landed');

# GRANT to the plain role directly, then REVOKE again.
$node->safe_psql('postgres', 'GRANT EXECUTE ON FUNCTION snowflake_nextval() TO plain');
($ret, $out, $err) = run_as('plain', 'postgres', q{INSERT INTO orders (note) VALUES ('granted') RETURNING id > 42});
is($out, 't', 'after GRANT the plain role can insert with the DEFAULT') or diag($err);
$node->safe_psql('postgres', 'REVOKE EXECUTE ON FUNCTION snowflake_nextval() FROM plain');
refused('plain', 'postgres', 'SELECT snowflake_nextval()',
	qr/permission denied for function snowflake_nextval/);

# The superuser always can.
is($node->safe_psql('postgres', 'SELECT snowflake_nextval() > 0'), 't', 'superuser still gets ids');

# Nothing above crashed a backend.
$node->stop;
unlike(slurp_file($node->logfile), qr/terminated by signal|server process .* exited with exit code [^0]/,
	'no backend crashed');

done_testing();
