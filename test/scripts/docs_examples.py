#!/usr/bin/env python3
r"""Runs every SQL example of the user documentation and compares its output.

    python3 test/scripts/docs_examples.py [--work DIR] [--bindir DIR] [FILE.md ...]

Without files: README.md and docs/*.md of this tree.  Every fenced block whose
info string is `sql` is an example: psql runs it (echoing its input, as
pg_regress does) and the transcript must equal the block, blank lines and
trailing spaces aside.  So a block holds the statements and, after each, the
output psql prints for it.

An HTML comment on the line before a fence (invisible once rendered) says how
to run the block:

    <!-- doctest: server=NAME db=NAME user=NAME verbose vary=id,ts retry=10 -->
    <!-- doctest: server=NAME sql-edition -->     (the SQL edition installed first)
    <!-- doctest: conf server=NAME -->          (before a postgresql.conf block)
    <!-- doctest: start-fails conf="snowflake.worker_id = 32" -->
    <!-- doctest: skip="why it cannot run" -->
    <!-- doctest: file=shop/models.py -->       (a block another suite extracts)

  server=NAME   the server to run on (default `node`).  A server's
                postgresql.conf is the union of the blocks marked `conf
                server=NAME`, in document order, plus what this runner needs
                (port, socket, TimeZone = 'UTC', lc_messages = 'C').  Servers
                are fresh for every run and start when first used.
  db=NAME       the database (default: one fresh database per file and
                server, doc_FILESTEM); an explicit one must exist already
                (an example creates it).
  user=NAME     the role psql connects as (default postgres).
  verbose       psql's VERBOSITY verbose: errors show their SQLSTATE
                ("ERROR:  22023: ...").  LOCATION lines are dropped.

The position psql shows under an error ("LINE n:" and its caret) is dropped
from every transcript: PostgreSQL 19 gives one for more errors than the
majors before it.
  vary=A,B      output that differs from run to run: every match in the block
                of the named patterns (id, ts, int, num, word) or of a
                /regex/ matches any text of that shape; runs of spaces and
                table borders then compare loosely (column widths vary).
  retry=N       the output converges (a background worker is still at work):
                rerun the block for up to N seconds until it matches.
  conf          the block is postgresql.conf lines for server NAME.
  start-fails   the block is what the log says when a server with the extra
                `conf="line"` lines (on top of server NAME's) refuses to start:
                its lines must appear in the log, in order.
  since=N       run only on PostgreSQL N and later (counted as skipped before).
  sql-edition   the database has the SQL edition (docs/managed.md): the plain
                script that `make sql-edition` makes is run into it, as the
                block's user, before the first such block.
  skip="why"    not run; the reason is required.
  file=PATH     not run here: another suite extracts the block verbatim.

psql echoes the statements a `\gexec` runs: in a block, the lines after a
`\gexec` line up to a COMMIT, ROLLBACK, END or blank line are taken as output.

Connection strings name servers as hosts: `host=registry` in an example or a
conf block is rewritten to that server's socket and port, in the block and in
its expected text alike.

Files named *-draft.md are included like the others.  Exit status 0 when every
example passed; the last line is "N passed, N failed".
"""
import argparse
import difflib
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

NAMED_VARY = {
    "id": r"\d{10,19}",
    "ts": r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?\+00",
    "int": r"-?\d+",
    "num": r"-?\d+(?:\.\d+)?",
    "word": r"[A-Za-z0-9_]+",
}
def drop_error_positions(lines):
    """Without the position psql shows under an error (a "LINE n:" line and
    the caret under it): PostgreSQL 19 gives one for more errors than the
    majors before it, and the documentation shows none."""
    out = []
    for l in lines:
        if re.match(r"LINE \d+: ", l) or (out and out[-1] is None and re.match(r"^\s*\^\s*$", l)):
            out.append(None)
            continue
        out.append(l)
    return [l for l in out if l is not None]


KNOWN_KEYS = {"server", "db", "user", "verbose", "vary", "retry", "conf", "start-fails", "skip",
              "file", "since", "sql-edition"}


class DocError(Exception):
    pass


class Block:
    def __init__(self, path, line, lang, text, opts, indent=""):
        self.path, self.line, self.lang, self.text, self.opts = path, line, lang, text, opts
        self.indent = indent

    @property
    def where(self):
        return f"{os.path.relpath(self.path, ROOT)}:{self.line}"


def parse_opts(comment, where):
    opts = {"conf_lines": []}
    for tok in shlex.split(comment):
        key, eq, value = tok.partition("=")
        if key not in KNOWN_KEYS:
            raise DocError(f"{where}: unknown doctest option {key!r}")
        if key == "vary":
            opts.setdefault("vary", []).extend(v for v in value.split(",") if v)
        elif key == "conf" and eq:
            opts["conf_lines"].append(value)
        elif key == "conf":
            opts["conf"] = True
        else:
            opts[key] = value if eq else True
    if "skip" in opts and opts["skip"] is True:
        raise DocError(f"{where}: skip needs a reason: skip=\"why\"")
    return opts


ANNOT = re.compile(r"^\s*<!--\s*doctest:(.*?)-->\s*$")
FENCE = re.compile(r"^(\s*)(```+)\s*([\w+-]*)\s*$")


def table_cells(line):
    """The cells of a Markdown table row: split on | outside code spans, \\| kept."""
    cells, cell, tick, i = [], "", False, 0
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            cell += body[i:i + 2]
            i += 2
            continue
        if c == "`":
            tick = not tick
        if c == "|" and not tick:
            cells.append(cell)
            cell = ""
        else:
            cell += c
        i += 1
    return cells + [cell]


def check_table(path, first, rows):
    """Every row of a table has as many cells as its header: a row that does
    not (a line pasted into the wrong table) renders garbled."""
    width = len(table_cells(rows[0]))
    for k, row in enumerate(rows[1:], 1):
        if len(table_cells(row)) != width:
            raise DocError(f"{path}:{first + k + 1}: a table row with {len(table_cells(row))} "
                           f"cells under a header of {width}")


def parse_file(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, pending, i = [], None, 0
    while i < len(lines):
        if lines[i].lstrip().startswith("|"):
            first = i
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                i += 1
            check_table(path, first, lines[first:i])
            continue
        m = ANNOT.match(lines[i])
        if m:
            pending = (i + 1, m.group(1))
            i += 1
            continue
        f = FENCE.match(lines[i])
        if f:
            indent, ticks, lang = f.group(1), f.group(2), f.group(3)
            start = i + 1
            body = []
            i += 1
            while i < len(lines) and not (lines[i].strip() == ticks and
                                          lines[i].startswith(indent)):
                body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
                i += 1
            if i == len(lines):
                raise DocError(f"{path}:{start}: unclosed code fence")
            opts = {"conf_lines": []}
            if pending and pending[0] == start - 1:
                opts = parse_opts(pending[1], f"{path}:{pending[0]}")
            elif pending:
                raise DocError(f"{path}:{pending[0]}: a doctest comment must be on the line "
                               "right before a code fence")
            pending = None
            blocks.append(Block(path, start, lang, "\n".join(body), opts, indent))
        elif pending and lines[i].strip():
            raise DocError(f"{path}:{pending[0]}: a doctest comment must be on the line "
                           "right before a code fence")
        i += 1
    return blocks


MESSAGE = re.compile(r"^(ERROR|DETAIL|HINT|NOTICE|WARNING|INFO|CONTEXT|LINE \d+):|^\s*\^\s*$")
DASHES = re.compile(r"^-+(\+-+)*$")
FOOTER = re.compile(r"^\(\d+ rows?\)$")


def psql_input(text):
    """The lines of a block that are psql's input: everything but what psql
    prints (messages, and tables from their header to their row count)."""
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        if lines[i].rstrip().endswith("\\gexec"):
            # psql echoes the statements \gexec runs: output, up to the
            # transaction's end or a blank line.
            out.append(lines[i])
            i += 1
            while i < len(lines) and lines[i].strip() and not re.match(
                    r"(COMMIT|ROLLBACK|END)\b", lines[i].strip(), re.I):
                i += 1
        elif MESSAGE.match(lines[i]):
            i += 1
        elif i + 1 < len(lines) and DASHES.match(lines[i + 1].strip()):
            i += 2
            while i < len(lines) and not FOOTER.match(lines[i].strip()):
                i += 1
            i += 1
        else:
            out.append(lines[i])
            i += 1
    return "\n".join(out) + "\n"


def normalize(text):
    return [l.rstrip() for l in text.split("\n") if l.strip()]


def shape_regex(expected_lines, vary):
    pats = []
    for v in vary:
        if v.startswith("/") and v.endswith("/") and len(v) > 1:
            pats.append(v[1:-1])
        elif v in NAMED_VARY:
            pats.append(NAMED_VARY[v])
        else:
            raise DocError(f"unknown vary pattern {v!r}")
    any_var = re.compile("|".join(f"(?:{p})" for p in pats))
    out = []
    for line in expected_lines:
        if re.fullmatch(r"[-+]+", line.strip()):
            out.append(r"\s*[-+]+")
            continue
        parts, pos = [], 0
        for m in any_var.finditer(line):
            parts.append(re.escape(line[pos:m.start()]))
            parts.append(f"(?:{any_var.pattern})")
            pos = m.end()
        parts.append(re.escape(line[pos:]))
        rx = "".join(parts)
        rx = re.sub(r"(\\ )+", r"\\s*", rx)       # column widths vary
        out.append(r"\s*" + rx.strip() + r"\s*")
    return [re.compile(p) for p in out]


def matches(expected, actual, vary):
    exp, act = normalize(expected), normalize(actual)
    if not vary:
        return exp == act
    rxs = shape_regex(exp, vary)
    return len(rxs) == len(act) and all(r.fullmatch(a) for r, a in zip(rxs, act))


class Servers:
    def __init__(self, work, bindir, port_base, conf_blocks):
        self.work, self.bindir, self.port_base = work, bindir, port_base
        self.conf = conf_blocks          # name -> [lines]
        self.names = {}                  # name -> (dir, port)
        self.started = set()
        self.databases = set()
        self.sql_edition = set()         # (server, db) with the SQL edition installed
        self.as_root = os.geteuid() == 0

    def cmd(self, args):
        if self.as_root:
            return ["runuser", "-u", "postgres", "--"] + args
        return args

    def run(self, args, **kw):
        return subprocess.run(self.cmd(args), cwd="/", capture_output=True, text=True, **kw)

    def address(self, name):
        if name not in self.names:
            port = self.port_base + len(self.names)
            self.names[name] = (os.path.join(self.work, "srv-" + name), port)
        return self.names[name]

    def rewrite_hosts(self, text):
        def sub(m):
            name = m.group(1)
            if name in self.conf or name in self.names:
                d, port = self.address(name)
                return f"host={d} port={port}"
            return m.group(0)
        return re.sub(r"host=([A-Za-z][\w.-]*)", sub, text)

    def init(self, d, port, lines):
        if os.path.exists(d):
            shutil.rmtree(d)
        os.makedirs(d)
        if self.as_root:
            shutil.chown(d, "postgres", "postgres")
        os.chmod(d, 0o700)
        r = self.run([os.path.join(self.bindir, "initdb"), "-D", d + "/data", "-A", "trust",
                      "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"])
        if r.returncode != 0:
            raise DocError(f"initdb failed: {r.stderr}")
        harness = [f"port = {port}", f"unix_socket_directories = '{d}'", "listen_addresses = ''",
                   "fsync = off", "TimeZone = 'UTC'", "log_timezone = 'UTC'",
                   "lc_messages = 'C'", "log_line_prefix = ''"]
        with open(d + "/data/postgresql.conf", "a") as f:
            f.write("\n# docs_examples.py\n" + "\n".join(harness) + "\n")
            f.write("# from the documentation\n" + "\n".join(lines) + "\n")

    def pg_ctl(self, d, action):
        return self.run([os.path.join(self.bindir, "pg_ctl"), "-D", d + "/data", "-l",
                         d + "/server.log", "-w", "-t", "60", "-m", "fast", action])

    def ensure(self, name):
        d, port = self.address(name)
        if name in self.started:
            return d, port
        lines = [self.rewrite_hosts(l) for l in self.conf.get(name, [])]
        self.init(d, port, lines)
        r = self.pg_ctl(d, "start")
        if r.returncode != 0:
            log = open(d + "/server.log").read()[-2000:]
            raise DocError(f"server {name} did not start:\n{log}")
        self.started.add(name)
        return d, port

    def ensure_db(self, name, db):
        """A page's own database (doc_...) is made fresh on first use."""
        self.ensure(name)
        if (name, db) not in self.databases and db.startswith("doc_"):
            self.sql(name, "postgres", f'DROP DATABASE IF EXISTS "{db}"', f'CREATE DATABASE "{db}"')
            self.databases.add((name, db))

    def psql(self, name, db, user, text, verbose):
        """The transcript of psql running text."""
        d, port = self.ensure(name)
        self.ensure_db(name, db)
        args = [os.path.join(self.bindir, "psql"), "-X", "-a", "-q", "-h", d, "-p", str(port),
                "-U", user, "-d", db, "-P", "pager=off", "-v", "SHOW_CONTEXT=never"]
        if verbose:
            args += ["-v", "VERBOSITY=verbose"]
        r = subprocess.run(self.cmd(args), cwd="/", input=text, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        lines = r.stdout.split("\n")
        if verbose:
            lines = [l for l in lines if not l.startswith("LOCATION:")]
        return "\n".join(drop_error_positions(lines))

    def install_sql_edition(self, name, db, user):
        """The SQL edition's plain script, made by `make sql-edition`, run into
        the database once."""
        if (name, db) in self.sql_edition:
            return
        dist = os.path.join(self.work, "dist")
        r = subprocess.run(["make", "-s", "-C", ROOT, "sql-edition", "DISTDIR=" + dist],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise DocError(f"make sql-edition failed: {r.stderr}")
        d, port = self.ensure(name)
        r = self.run([os.path.join(self.bindir, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1",
                      "-h", d, "-p", str(port), "-U", user, "-d", db,
                      "-f", os.path.join(dist, "snowflake_sql.sql")])
        if r.returncode != 0:
            raise DocError(f"installing the SQL edition failed: {r.stderr}")
        self.sql_edition.add((name, db))

    def sql(self, name, db, *statements):
        d, port = self.ensure(name)
        args = [os.path.join(self.bindir, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1",
                "-h", d, "-p", str(port), "-U", "postgres", "-d", db]
        for s in statements:
            args += ["-c", s]
        r = self.run(args)
        if r.returncode != 0:
            raise DocError(r.stderr)

    def start_fails(self, name, extra, expected):
        d, port = os.path.join(self.work, "srv-start-check"), self.port_base + 99
        lines = [self.rewrite_hosts(l) for l in self.conf.get(name, []) + extra]
        self.init(d, port, lines)
        r = self.pg_ctl(d, "start")
        log = open(d + "/server.log").read()
        if r.returncode == 0:
            self.pg_ctl(d, "stop")
            return False, "the server started:\n" + log
        got = [l.rstrip() for l in log.split("\n")
               if re.match(r"(FATAL|ERROR|DETAIL|HINT|WARNING):", l)]
        exp = normalize(expected)
        for k in range(len(got) - len(exp) + 1):
            if got[k:k + len(exp)] == exp:
                return True, ""
        return False, "\n".join(got)

    def stop_all(self):
        for name in list(self.started):
            self.pg_ctl(self.names[name][0], "stop")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default="/var/tmp/snowflake-docs")
    ap.add_argument("--bindir", default=None)
    ap.add_argument("--port-base", type=int, default=54600)
    ap.add_argument("--list", action="store_true", help="list the examples, run nothing")
    ap.add_argument("--bless", action="store_true",
                    help="write the actual output into the files (for writing docs; review it)")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or [os.path.join(ROOT, "README.md")] + sorted(
        glob.glob(os.path.join(ROOT, "docs", "*.md")))
    bindir = a.bindir
    if not bindir:
        pgc = os.environ.get("PG_CONFIG", "pg_config")
        bindir = subprocess.run([pgc, "--bindir"], capture_output=True, text=True,
                                check=True).stdout.strip()

    # Servers are configured by the conf blocks of every document, whichever
    # documents are run.
    every = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    try:
        blocks = [b for f in files for b in parse_file(os.path.abspath(f))]
        conf_blocks = [b for f in sorted(set(map(os.path.abspath, files + every)))
                       for b in parse_file(f)]
    except DocError as e:
        print(f"docs_examples: {e}")
        print("0 passed, 1 failed")
        return 1
    conf = {}
    for b in conf_blocks:
        if b.opts.get("conf"):
            conf.setdefault(b.opts.get("server", "node"), []).extend(
                l for l in b.text.split("\n") if l.strip() and not l.lstrip().startswith("#"))
    sql_blocks = [b for b in blocks if b.lang == "sql" or "start-fails" in b.opts]
    if a.list:
        for b in sql_blocks:
            print(b.where, b.opts)
        return 0

    os.makedirs(a.work, exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(a.work, "postgres", "postgres")
    servers = Servers(a.work, bindir, a.port_base, conf)
    version = subprocess.run([os.path.join(bindir, "postgres"), "--version"], capture_output=True,
                             text=True, check=True).stdout
    major = int(re.search(r"\) (\d+)", version).group(1))
    passed = failed = skipped = 0
    bless = []
    try:
        for b in sql_blocks:
            o = b.opts
            if "skip" in o:
                skipped += 1
                print(f"{b.where}: skipped ({o['skip']})")
                continue
            if "file" in o:
                continue
            if "since" in o and major < int(o["since"]):
                skipped += 1
                print(f"{b.where}: skipped (PostgreSQL {o['since']} and later)")
                continue
            try:
                if "start-fails" in o:
                    ok, got = servers.start_fails(o.get("server", "node"), o["conf_lines"], b.text)
                    expected = b.text
                else:
                    server = o.get("server", "node")
                    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(b.path))[0].lower())
                    db = o.get("db", "doc_" + stem)
                    text = servers.rewrite_hosts(b.text)
                    expected = text
                    if "sql-edition" in o:
                        servers.ensure_db(server, db)
                        servers.install_sql_edition(server, db, o.get("user", "postgres"))
                    deadline = time.time() + float(o.get("retry", 0))
                    while True:
                        got = servers.psql(server, db, o.get("user", "postgres"),
                                           psql_input(text), "verbose" in o)
                        ok = matches(expected, got, o.get("vary", []))
                        if ok or time.time() >= deadline:
                            break
                        time.sleep(0.5)
            except DocError as e:
                ok, got, expected = False, str(e), b.text
            if a.bless and not ok:
                bless.append((b, got))
            if ok:
                passed += 1
                print(f"{b.where}: ok")
            else:
                failed += 1
                print(f"{b.where}: FAILED")
                diff = difflib.unified_diff(normalize(expected), normalize(got), "documented",
                                            "actual", lineterm="", n=2)
                for line in diff:
                    print("    " + line)
    finally:
        servers.stop_all()
    for b, got in sorted(bless, key=lambda x: (x[0].path, -x[0].line)):
        lines = open(b.path, encoding="utf-8").read().split("\n")
        n = len(b.text.split("\n"))
        new = re.sub(r"\n{3,}", "\n\n", got.rstrip("\n")).split("\n")
        new = [(b.indent + l).rstrip() for l in new]
        lines[b.line:b.line + n] = new
        open(b.path, "w", encoding="utf-8").write("\n".join(lines))
        print(f"{b.where}: blessed")
    print(f"{len(files)} files, {skipped} examples skipped")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
