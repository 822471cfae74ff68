# Helpers shared by the TAP tests of clock policies, crashes and the state
# file: nodes with the extension preloaded, a per-node faked clock
# (libfaketime), crashing a node for real, decoding ids.
package SnowflakeTest;

use strict;
use warnings;

use Cwd qw(abs_path);
use Exporter 'import';
use File::Basename qw(dirname);
use POSIX qw(WNOHANG);
use Time::HiRes qw(usleep time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

our @EXPORT = qw(
  new_node set_case set_clock start_node crash reload_case
  decode_id unix_ms_of now_unix_ms server_unix_ms
  read_state state_path timed_psql status tree_root sf_concurrency worker_pid
  start_client finish_client new_primary new_publisher max min
);

# Defaults of the layout (SPEC §2): the tests decode ids themselves.
our $EPOCH_MS = 1288834974657;
our $SEQ_BITS = 12;
our $WORKER_BITS = 5;
our $DC_BITS = 5;

# The MT build of libfaketime blocks every signal while it reads the clock
# file.  The plain build does not: a SIGALRM (a PostgreSQL timeout) that came
# while it had the file open ran the handler's own clock read, whose fopen
# waited for ever on the stdio lock the interrupted fclose held, and the
# backend hung.
my $FAKETIME_LIB = '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1';

# Make this test script the reaper of every orphan below it: a postmaster
# started by pg_ctl is reparented to us when pg_ctl exits, and its children
# when it is killed.  Without this they would be reparented to PID 1, which
# on some machines (containers, VMs with a minimal init) never reaps them: a
# zombie postmaster still "exists" for kill(pid, 0), and the next start
# refuses with "lock file postmaster.pid already exists".
{
	my $sys_prctl = eval { require 'syscall.ph'; &SYS_prctl } // 157;   # x86_64
	my $PR_SET_CHILD_SUBREAPER = 36;
	syscall($sys_prctl, $PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
	  or diag("prctl(PR_SET_CHILD_SUBREAPER) failed: $! (crash tests may not restart)");
}

sub tree_root { return abs_path(dirname(__FILE__) . '/../..'); }

# A node with the extension preloaded (worker 25, datacenter 17) and an
# included file snowflake_case.conf for per-case settings.
sub new_node
{
	my ($name) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', <<'EOC');
shared_preload_libraries = 'snowflake'
snowflake.worker_id = 25
snowflake.datacenter_id = 17
include_if_exists 'snowflake_case.conf'
EOC
	set_case($node);
	set_clock($node, '+0');
	return $node;
}

# A node that can stream to standbys, with the extension preloaded, the given
# postgresql.conf lines (a node identity, say) and the per-case file.
sub new_primary
{
	my ($name, @lines) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(allows_streaming => 1);
	$node->append_conf('postgresql.conf', join('', map { "$_\n" } (
		"shared_preload_libraries = 'snowflake'", @lines,
		"include_if_exists 'snowflake_case.conf'")));
	return $node;
}

# A started node for logical replication with the given identity, publishing
# table ev (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), node,
# made_at, payload) as pub_ev.
sub new_publisher
{
	my ($name, $dc, $worker) = @_;
	my $n = PostgreSQL::Test::Cluster->new($name);
	$n->init(allows_streaming => 'logical');
	$n->append_conf('postgresql.conf', <<"EOC");
shared_preload_libraries = 'snowflake'
snowflake.datacenter_id = $dc
snowflake.worker_id = $worker
EOC
	$n->start;
	$n->safe_psql('postgres', <<'EOS');
CREATE EXTENSION snowflake;
CREATE TABLE ev(id bigint PRIMARY KEY DEFAULT snowflake_nextval(), node text NOT NULL,
                made_at timestamptz NOT NULL DEFAULT clock_timestamp(), payload int);
CREATE PUBLICATION pub_ev FOR TABLE ev;
EOS
	return $n;
}

# Rewrites snowflake_case.conf with the given lines (replacing earlier ones).
sub set_case
{
	my ($node, @lines) = @_;
	my $f = $node->data_dir . '/snowflake_case.conf';
	open my $fh, '>', "$f.tmp" or die "$f.tmp: $!";
	print $fh map { "$_\n" } @lines;
	close $fh or die $!;
	rename "$f.tmp", $f or die $!;
}

# set_case, reload, and wait until a new session sees $check_sql return 't'.
sub reload_case
{
	my ($node, $check_sql, @lines) = @_;
	set_case($node, @lines);
	$node->reload;
	$node->poll_query_until('postgres', $check_sql)
	  or die "reload not applied: $check_sql";
}

sub clock_file { return $_[0]->basedir . '/faketime'; }

# Sets the faked clock of a node started with faketime => 1, as an offset
# from the real clock in libfaketime syntax ("-5", "-10m", "+0").  Read on
# every clock read of the server (FAKETIME_NO_CACHE): this steps a running
# server's clock.  Written by rename, so no reader sees a half-written file.
sub set_clock
{
	my ($node, $offset) = @_;
	my $f = clock_file($node);
	open my $fh, '>', "$f.tmp" or die "$f.tmp: $!";
	print $fh "$offset\n";
	close $fh or die $!;
	rename "$f.tmp", $f or die $!;
}

# Starts a node, optionally under libfaketime.  Returns what
# PostgreSQL::Test::Cluster::start returns.
sub start_node
{
	my ($node, %opt) = @_;
	local $ENV{LD_PRELOAD} = $ENV{LD_PRELOAD};
	local $ENV{FAKETIME_TIMESTAMP_FILE} = $ENV{FAKETIME_TIMESTAMP_FILE};
	local $ENV{FAKETIME_NO_CACHE} = $ENV{FAKETIME_NO_CACHE};
	local $ENV{FAKETIME_DONT_FAKE_MONOTONIC} = $ENV{FAKETIME_DONT_FAKE_MONOTONIC};
	if ($opt{faketime})
	{
		die "libfaketime not found at $FAKETIME_LIB (Debian package faketime)"
		  unless -e $FAKETIME_LIB;
		$ENV{LD_PRELOAD} = $FAKETIME_LIB;
		$ENV{FAKETIME_TIMESTAMP_FILE} = clock_file($node);
		$ENV{FAKETIME_NO_CACHE} = '1';
		$ENV{FAKETIME_DONT_FAKE_MONOTONIC} = '1';
	}
	return $node->start(fail_ok => $opt{fail_ok});
}

# Pids of the processes whose parent is $ppid.
sub children_of
{
	my ($ppid) = @_;
	my @kids;
	opendir my $dh, '/proc' or die "/proc: $!";
	foreach my $pid (grep { /^\d+$/ } readdir $dh)
	{
		my $stat = proc_stat($pid) or next;
		push @kids, $pid if $stat->{ppid} == $ppid;
	}
	closedir $dh;
	return @kids;
}

# State and parent of a process, or undef if it is gone.
sub proc_stat
{
	my ($pid) = @_;
	open my $fh, '<', "/proc/$pid/stat" or return undef;
	my $line = <$fh>;
	close $fh;
	return undef unless defined $line;
	# "pid (comm) state ppid ...": comm may contain anything, so split after
	# the last ')'.
	my ($rest) = $line =~ /\)\s(.*)$/s or return undef;
	my ($state, $ppid) = split ' ', $rest;
	return { state => $state, ppid => $ppid };
}

# Alive = exists and is not a zombie (reaps it if it is our zombie).
sub alive
{
	my ($pid) = @_;
	waitpid($pid, WNOHANG);
	my $st = proc_stat($pid);
	return defined $st && $st->{state} ne 'Z' && $st->{state} ne 'X';
}

# Live processes whose working directory is the node's data directory: every
# process of a PostgreSQL server has it as cwd.
sub holders_of_data_dir
{
	my ($node) = @_;
	my $dir = abs_path($node->data_dir);
	my @pids;
	opendir my $dh, '/proc' or die "/proc: $!";
	foreach my $pid (grep { /^\d+$/ } readdir $dh)
	{
		my $cwd = readlink "/proc/$pid/cwd";
		push @pids, $pid if defined $cwd && $cwd eq $dir && alive($pid);
	}
	closedir $dh;
	return @pids;
}

# kill -9 of the postmaster and of all its children, like a power cut of the
# server's processes: stops the postmaster first (so it forks nothing new),
# then kills it and every child, and waits until none of them is alive and no
# process holds the data directory.  Returns the unix ms at which the kill
# happened.
sub crash
{
	my ($node) = @_;
	open my $fh, '<', $node->data_dir . '/postmaster.pid'
	  or die "no postmaster.pid: $!";
	chomp(my $pm = <$fh>);
	close $fh;
	kill 'STOP', $pm;
	my @kids = children_of($pm);
	my $at = now_unix_ms();
	$node->kill9;    # SIGKILL to the postmaster; the node is now "stopped"
	kill 'KILL', @kids if @kids;
	my $deadline = time + $PostgreSQL::Test::Utils::timeout_default;
	while (time < $deadline)
	{
		last unless grep { alive($_) } ($pm, @kids) or holders_of_data_dir($node);
		usleep(20_000);
	}
	my @left = (grep({ alive($_) } ($pm, @kids)), holders_of_data_dir($node));
	die "processes of the killed server still alive: @left" if @left;
	note "crashed postmaster $pm and its " . scalar(@kids) . " children";
	return $at;
}

# Pid of the node's background worker titled "postgres: $title" (e.g.
# "snowflake reserver"; with cluster_name, "postgres: NAME: $title"), or undef.
sub worker_pid
{
	my ($node, $title) = @_;
	open my $fh, '<', $node->data_dir . '/postmaster.pid' or return undef;
	chomp(my $pm = <$fh>);
	close $fh;
	foreach my $pid (children_of($pm))
	{
		open my $c, '<', "/proc/$pid/cmdline" or next;
		my $cmd = <$c> // '';
		close $c;
		return $pid if $cmd =~ /^postgres: (?:[^:\0]+: )?\Q$title\E\s*(\0|$)/ && alive($pid);
	}
	return undef;
}

sub now_unix_ms { return int(time * 1000); }

# The server's wall clock (faked or not), in unix ms.
sub server_unix_ms
{
	my ($node) = @_;
	return $node->safe_psql('postgres',
		'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint');
}

# Decodes an id under the default layout.
sub decode_id
{
	my ($id) = @_;
	return {
		unix_ms => ($id >> ($SEQ_BITS + $WORKER_BITS + $DC_BITS)) + $EPOCH_MS,
		datacenter_id => ($id >> ($SEQ_BITS + $WORKER_BITS)) & ((1 << $DC_BITS) - 1),
		worker_id => ($id >> $SEQ_BITS) & ((1 << $WORKER_BITS) - 1),
		sequence => $id & ((1 << $SEQ_BITS) - 1),
	};
}

sub unix_ms_of { return decode_id($_[0])->{unix_ms}; }

# The largest and smallest of a list of ids, compared exactly.  Not
# List::Util's: its max and min compare as doubles, which hold ids of this
# size only to the nearest 128, so of two ids that close they could return
# either.
sub max
{
	my $m = shift;
	for (@_) { $m = $_ if $_ > $m; }
	return $m;
}

sub min
{
	my $m = shift;
	for (@_) { $m = $_ if $_ < $m; }
	return $m;
}

sub state_path { return $_[0]->data_dir . '/snowflake.state'; }

# The state file as a hash of its "key value" lines (plus header => line 1).
sub read_state
{
	my ($node) = @_;
	my $text = slurp_file(state_path($node));
	my @lines = split /\n/, $text;
	my %h = (header => shift @lines);
	foreach (@lines)
	{
		my ($k, $v) = split / /, $_, 2;
		$h{$k} = $v;
	}
	return \%h;
}

# psql returning (ret, stdout, stderr, elapsed seconds).
sub timed_psql
{
	my ($node, $sql, %opt) = @_;
	my $t0 = time;
	my ($ret, $out, $err) = $node->psql('postgres', $sql, %opt);
	return ($ret, $out, $err, time - $t0);
}

# One column of snowflake_status.
sub status
{
	my ($node, $col) = @_;
	return $node->safe_psql('postgres', "SELECT $col FROM snowflake_status");
}

# Path of test/client/sf_concurrency, built if missing.
sub sf_concurrency
{
	my $bin = tree_root() . '/test/client/sf_concurrency';
	system('make', '-s', '-C', tree_root() . '/test/client') unless -x $bin;
	die "$bin is missing (make -C test/client)" unless -x $bin;
	return $bin;
}

# Runs sf_concurrency in the background against $conninfo: $sessions
# sessions, $ids ids each, $batch per round trip, every id written to $out;
# @extra are more options.  Returns what finish_client takes.  A client
# still running three test timeouts after its start is killed and the test
# dies, so a hung server fails the test instead of stalling the suite.
sub start_client
{
	my ($conninfo, $out, $sessions, $ids, $batch, @extra) = @_;
	my ($o, $e) = ('', '');
	my $h = IPC::Run::start(
		[ sf_concurrency(), '--conn', $conninfo, '--per-conn', $sessions, '--ids', $ids,
		  '--batch', $batch, '--out', $out, @extra ],
		'>', \$o, '2>', \$e,
		IPC::Run::timeout(3 * $PostgreSQL::Test::Utils::timeout_default));
	return { h => $h, out => \$o, err => \$e };
}

# Waits for a start_client run; returns its exit status (0 all checks passed,
# 1 a check failed, 2 an error such as a lost connection).
sub finish_client
{
	my ($c) = @_;
	$c->{h}->finish;
	my $rc = $c->{h}->result(0);
	note "sf_concurrency exit $rc\nstdout: ${$c->{out}}\nstderr: ${$c->{err}}";
	return $rc;
}

1;
