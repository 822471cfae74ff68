# Helpers of the SQL edition's suite (test/sql_edition/*.pl, run by
# test/scripts/sql_edition.sh): the managed server (pg_tle preloaded, run from
# a PostgreSQL installation without the C extension's files), installing the
# edition from dist/ as a role that is not a superuser, sessions kept open,
# and the checks on lists of ids.
package SqlEditionTest;

use strict;
use warnings;

use Exporter 'import';
use File::Basename qw(dirname);
use IPC::Run;
use Time::HiRes qw(usleep time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SnowflakeTest qw(set_clock start_node tree_root);

our @EXPORT = qw(
  managed_node plain_node c_node dist_file make_dist add_role psql_as safe_psql_as
  install_pg_tle install_plain conninfo_as open_session session_do close_session
  increasing all_distinct doc_block borrowed_after_step
);

# The managed server: the copy of PostgreSQL with pg_tle built in and no file
# of the C extension (test/lib/pgtle.sh), pg_tle preloaded and created by the
# superuser, as a managed service provides it; a per-node faked clock file
# (SnowflakeTest::set_clock) for start_node(..., faketime => 1).
sub managed_node
{
	my ($name, %opt) = @_;
	my $bindir = $ENV{SNOWFLAKE_PGTLE_BINDIR}
	  or die "SNOWFLAKE_PGTLE_BINDIR is not set (test/scripts/sql_edition.sh sets it)";
	my $node = PostgreSQL::Test::Cluster->new($name, install_path => dirname($bindir));
	$node->init(allows_streaming => $opt{streaming} ? 1 : 0);
	$node->append_conf('postgresql.conf',
		"shared_preload_libraries = 'pg_tle'\nmax_connections = 40\n");
	set_clock($node, '+0');
	return $node;
}

# A server without pg_tle and without the C extension loaded (its files are
# installed: nothing of the SQL edition uses them).
sub plain_node
{
	my ($name) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', "max_connections = 40\n");
	set_clock($node, '+0');
	return $node;
}

# A server with the C extension preloaded and the given postgresql.conf lines.
sub c_node
{
	my ($name, @lines) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf',
		join('', map { "$_\n" } ("shared_preload_libraries = 'snowflake'", 'max_connections = 40',
		                          @lines)));
	set_clock($node, '+0');
	return $node;
}

# dist/ of the tree: made by `make sql-edition` (the suite script runs it).
sub dist_file
{
	my ($which) = @_;
	my $f = tree_root() . "/dist/$which";
	die "$f is missing: run make sql-edition" unless -f $f;
	return $f;
}

# Makes the two files into $dir, for another version (pg_tle updates).
sub make_dist
{
	my ($dir, $version, @earlier) = @_;
	my $out = `make -s -C '@{[tree_root()]}' sql-edition DISTDIR='$dir' SQL_EDITION_VERSION='$version' SQL_EDITION_EARLIER='@earlier' 2>&1`;
	die "make sql-edition failed: $out" if $?;
	return $dir;
}

# A login role that is not a superuser, with the given extra role options.
sub add_role
{
	my ($node, $role, @grants) = @_;
	$node->safe_psql('postgres', "CREATE ROLE $role LOGIN NOSUPERUSER");
	$node->safe_psql('postgres', $_) for @grants;
	return $role;
}

sub psql_as
{
	my ($node, $db, $role, $sql, %opt) = @_;
	return $node->psql($db, $sql, extra_params => [ '-U', $role ], %opt);
}

sub safe_psql_as
{
	my ($node, $db, $role, $sql) = @_;
	return $node->safe_psql($db, $sql, extra_params => [ '-U', $role ]);
}

sub run_file_as
{
	my ($node, $db, $role, $file, $before) = @_;
	my @cmd = ($node->installed_command('psql'), '-X', '-q', '-v', 'ON_ERROR_STOP=1',
		'-d', $node->connstr($db), '-U', $role);
	push @cmd, '-c', $before if $before;
	push @cmd, '-f', $file;
	my ($out, $err);
	IPC::Run::run(\@cmd, '>', \$out, '2>', \$err)
	  or die "psql -f $file as $role failed: $err";
	return $out;
}

# The pg_tle way, as $role (a member of pgtle_admin): register the extension
# from dist/, then CREATE EXTENSION snowflake_sql in $schema.
sub install_pg_tle
{
	my ($node, $db, $role, $schema, $file) = @_;
	run_file_as($node, $db, $role, $file // dist_file('snowflake_sql_pg_tle.sql'));
	safe_psql_as($node, $db, $role, "CREATE EXTENSION snowflake_sql SCHEMA $schema");
}

# The plain script, as $role, into $schema.
sub install_plain
{
	my ($node, $db, $role, $schema, $file) = @_;
	run_file_as($node, $db, $role, $file // dist_file('snowflake_sql.sql'),
		"SET search_path = $schema");
}

# A libpq connection string for $role whose sessions find the edition in $schema.
sub conninfo_as
{
	my ($node, $db, $role, $schema) = @_;
	return $node->connstr($db) . " user=$role options='-c search_path=$schema'";
}

# A psql session kept open (a transaction left open in it, say): statements
# are sent one at a time, each followed by a marker that says it is done.
sub open_session
{
	my ($node, $db, $role) = @_;
	my %s = (in => '', out => '', err => '');
	$s{h} = IPC::Run::start(
		[ $node->installed_command('psql'), '-X', '-A', '-t', '-q', '-v', 'ON_ERROR_STOP=0',
		  '-d', $node->connstr($db), '-U', $role ],
		'<', \$s{in}, '>', \$s{out}, '2>', \$s{err});
	return \%s;
}

# Runs $sql in the session; returns its output (and stderr), without the marker.
sub session_do
{
	my ($s, $sql) = @_;
	my $marker = 'done-' . int(rand(1e9));
	$sql =~ s/;?\s*\z/;/;    # psql sends a statement at its semicolon
	$s->{out} = '';
	$s->{err} = '';
	$s->{in} .= "$sql\n\\echo $marker\n";
	my $deadline = time + $PostgreSQL::Test::Utils::timeout_default;
	$s->{h}->pump until $s->{out} =~ /\Q$marker\E/ || time > $deadline;
	die "session did not answer: $s->{err}" unless $s->{out} =~ /\Q$marker\E/;
	(my $out = $s->{out}) =~ s/\Q$marker\E\n?//;
	chomp $out;
	return wantarray ? ($out, $s->{err}) : $out;
}

sub close_session
{
	my ($s) = @_;
	$s->{in} .= "\\q\n";
	$s->{h}->finish;
}

# Checks the ms a node says it borrowed ahead ($ahead) after its clock was
# stepped back $step_ms, $t_step being a time (Time::HiRes) taken before the
# node made its last ids before the step, which so carry $t_step or later:
# the ids are ahead of the clock by the step less the time since $t_step
# (more on a busy machine; never less), and still ahead unless that whole
# time has passed.
sub borrowed_after_step
{
	my ($ahead, $step_ms, $t_step, $name) = @_;
	my $since = int(1000 * (time - $t_step));
	ok($ahead >= $step_ms - $since - 50 && ($ahead > 0 || $since >= $step_ms - 50),
		"$name ($ahead ms, $since ms since the ids before the step began)");
}

sub increasing
{
	my @ids = @_;
	for my $i (1 .. $#ids) { return 0 unless $ids[$i] > $ids[ $i - 1 ]; }
	return 1;
}

sub all_distinct
{
	my %seen;
	return !grep { $seen{$_}++ } @_;
}

# The text of the code block of docs/managed.md marked
# <!-- doctest: file=NAME -->: the steps this suite runs as the page shows them.
sub doc_block
{
	my ($name) = @_;
	my $page = tree_root() . '/docs/managed.md';
	open my $fh, '<', $page or die "$page: $!";
	my $text = do { local $/; <$fh> };
	close $fh;
	# The block may sit in a list item: indented, like its fence.
	$text =~ /^([ \t]*)<!--\s*doctest:\s*file=\Q$name\E\s*-->\n\1```\w*\n(.*?)^\1```/ms
	  or die "no block file=$name in $page";
	my ($indent, $body) = ($1, $2);
	$body =~ s/^\Q$indent\E//mg;
	return $body;
}

1;
