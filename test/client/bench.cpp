// sf_bench: the snowflake extension's benchmark (issue 4), side by side with
// the alternatives, in one run.
//
// Two servers: A with the default layout (41/5/5/12, 4096 ids per ms), and B
// with sequence_bits = 16 (41/3/3/16, 65536 ids per ms) so that the per-ms cap
// does not hide the generator's own cost.  Both need: the extension created,
// sequences s1 (CACHE 1) and s100 (CACHE 100), and the UNLOGGED tables
// t_const, t_sf and t_s1 (id bigint DEFAULT 0 / snowflake_nextval() /
// nextval('s1'), v integer, no index).  test/scripts/bench.sh sets this up.
//
// Every measurement is repeated (--reps) with the variants alternating (and
// their order rotating) within each repetition; figures are medians with
// [min..max], and ratios are medians of the per-repetition ratios (the runs
// of one repetition are adjacent in time, so a slow spell of a shared machine
// touches both sides).  One untimed warm-up repetition precedes the bulk section.
//
//   (a) bulk rate of one backend: SELECT count(x) FROM (SELECT <expr> x FROM
//       generate_series(1, N)) s, timed by this client, on A (and on B);
//       cap efficiency from the ids themselves.
//   (b) net cost per id above the floor `1` on B, paired per repetition.
//   (c) cap efficiency: ids / (span of embedded ms * 2^sequence_bits), for
//       (a)'s snowflake_nextval() and for snowflake_generate(n), on A.
//   (d) round trips: 1, 2, 8 connections, prepared, autocommit, fixed time.
//   (e) concurrent inserts: 1, 2, 8 sessions into one UNLOGGED table, on A
//       (where the floor can exceed the 4.096 M/s cap) and on B.
//   (f) memory: shared memory the extension requests, peak RSS of processes.
//   (h) index size: N rows (10 M) into a table with a PRIMARY KEY of each
//       key type, one session; the primary key's size, its leaf density
//       (pgstattuple, if installed) and the load time.
//   (i) the SQL edition (docs/managed.md), installed on A in schema sqled
//       (bench.sh does it): its snowflake_nextval() in one backend as a
//       ratio to nextval() CACHE 1 (bulk, as in (a)); its
//       snowflake_generate(n), the same number of ids, as a ratio to the
//       ceiling (a PL/pgSQL function that only returns nextval()) and to
//       nextval() CACHE 1; 1 and 4 sessions together, the same number of
//       ids split between them; one id per round trip.
//
// On PostgreSQL 18, uuidv7() joins gen_random_uuid() in (a), (e) and (h).
// ((g) is bench.sh's sessions sweep, test/client/sweep.cpp.)
//
// No timing assertions: exit 0 when everything ran and produced numbers,
// 2 on any error (server error, lost connection, wrong row counts, usage).

#include <dirent.h>
#include <getopt.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <pqxx/pqxx>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cli.hpp"
#include "pqxx_compat.hpp"
#include "start_gate.hpp"
#include "stats.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// ---------------------------------------------------------------- options --

struct Options {
  std::string conn_a;
  std::string conn_b;
  bool quick = false;
  long reps = -1;          // -1: 5 (full) or 2 (quick)
  long bulk_n = -1;        // 2,000,000 / 100,000
  long gen_n = -1;         // 1,000,000 / 100,000
  double rt_seconds = -1;  // 3.0 / 0.3
  long insert_rows = -1;   // 4,000,000 / 40,000
  long chunk = -1;         // 100,000 / 10,000
  long index_rows = -1;    // 10,000,000 / 100,000
  bool run_bulk = true, run_rt = true, run_insert = true, run_mem = true, run_index = true,
       run_sql = true;
  std::vector<std::string> notes;
  std::string command_line;
};

[[noreturn]] void usage(int code) {
  std::fprintf(code == 0 ? stdout : stderr,
               "usage: sf_bench --conn-a CONNSTR --conn-b CONNSTR [options]\n"
               "  --conn-a CONNSTR   server A: default layout (sequence_bits 12)\n"
               "  --conn-b CONNSTR   server B: sequence_bits 16, worker_bits 3, datacenter_bits 3\n"
               "  --quick            tiny sizes, 2 repetitions (proves it works; seconds)\n"
               "  --reps N           repetitions per measurement (default 5; quick 2)\n"
               "  --bulk-n N         rows of the bulk queries (default 2000000; quick 100000)\n"
               "  --gen-n N          n of snowflake_generate(n) (default 1000000; quick 100000)\n"
               "  --rt-seconds S     duration of one round-trip run (default 3; quick 0.3)\n"
               "  --insert-rows N    rows per insert run, shared by the sessions\n"
               "                     (default 4000000; quick 40000)\n"
               "  --chunk N          rows per INSERT statement (default 100000; quick 10000)\n"
               "  --index-rows N     rows per key type in the index-size section\n"
               "                     (default 10000000; quick 100000)\n"
               "  --only LIST        run only these sections, comma-separated from\n"
               "                     bulk (a, b, c), rt (d), insert (e), mem (f), index (h),\n"
               "                     sql (i);\n"
               "                     default all\n"
               "  --note TEXT        a line printed with the machine facts (repeatable)\n"
               "exit: 0 ran and produced numbers, 2 error\n");
  std::exit(code);
}

long parse_long(const char *name, const char *s, long min) {
  return parse_long_option("sf_bench", name, s, min);
}

double parse_seconds(const char *name, const char *s) {
  char *end = nullptr;
  errno = 0;
  const double v = std::strtod(s, &end);
  if (errno != 0 || end == s || *end != '\0' || !(v > 0) || v > 3600) {
    std::fprintf(stderr, "sf_bench: bad value for --%s: '%s'\n", name, s);
    std::exit(2);
  }
  return v;
}

std::string shell_quote(const std::string &s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-./=:,+@%") == std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) {
    if (c == '\'')
      q += "'\\''";
    else
      q += c;
  }
  return q + "'";
}

void parse_only(Options &o, const std::string &list) {
  o.run_bulk = o.run_rt = o.run_insert = o.run_mem = o.run_index = o.run_sql = false;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item == "bulk")
      o.run_bulk = true;
    else if (item == "rt")
      o.run_rt = true;
    else if (item == "insert")
      o.run_insert = true;
    else if (item == "mem")
      o.run_mem = true;
    else if (item == "index")
      o.run_index = true;
    else if (item == "sql")
      o.run_sql = true;
    else {
      std::fprintf(stderr, "sf_bench: bad section in --only: '%s' (bulk, rt, insert, mem, index, sql)\n",
                   item.c_str());
      std::exit(2);
    }
  }
}

Options parse_args(int argc, char **argv) {
  Options o;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) o.command_line += ' ';
    o.command_line += shell_quote(argv[i]);
  }
  enum {
    O_A = 1000,
    O_B,
    O_QUICK,
    O_REPS,
    O_BULK,
    O_GEN,
    O_RT,
    O_INS,
    O_CHUNK,
    O_NOTE,
    O_ONLY,
    O_INDEX_ROWS,
    O_HELP
  };
  static const struct option longopts[] = {{"conn-a", required_argument, nullptr, O_A},
                                           {"conn-b", required_argument, nullptr, O_B},
                                           {"quick", no_argument, nullptr, O_QUICK},
                                           {"reps", required_argument, nullptr, O_REPS},
                                           {"bulk-n", required_argument, nullptr, O_BULK},
                                           {"gen-n", required_argument, nullptr, O_GEN},
                                           {"rt-seconds", required_argument, nullptr, O_RT},
                                           {"insert-rows", required_argument, nullptr, O_INS},
                                           {"chunk", required_argument, nullptr, O_CHUNK},
                                           {"note", required_argument, nullptr, O_NOTE},
                                           {"only", required_argument, nullptr, O_ONLY},
                                           {"index-rows", required_argument, nullptr, O_INDEX_ROWS},
                                           {"help", no_argument, nullptr, O_HELP},
                                           {nullptr, 0, nullptr, 0}};
  int c;
  bool have_a = false, have_b = false;
  while ((c = getopt_long(argc, argv, "h", longopts, nullptr)) != -1) {
    switch (c) {
      case O_A:
        o.conn_a = optarg;
        have_a = true;
        break;
      case O_B:
        o.conn_b = optarg;
        have_b = true;
        break;
      case O_QUICK:
        o.quick = true;
        break;
      case O_REPS:
        o.reps = parse_long("reps", optarg, 1);
        break;
      case O_BULK:
        o.bulk_n = parse_long("bulk-n", optarg, 1000);
        break;
      case O_GEN:
        o.gen_n = parse_long("gen-n", optarg, 1000);
        break;
      case O_RT:
        o.rt_seconds = parse_seconds("rt-seconds", optarg);
        break;
      case O_INS:
        o.insert_rows = parse_long("insert-rows", optarg, 8);
        break;
      case O_CHUNK:
        o.chunk = parse_long("chunk", optarg, 1);
        break;
      case O_NOTE:
        o.notes.emplace_back(optarg);
        break;
      case O_ONLY:
        parse_only(o, optarg);
        break;
      case O_INDEX_ROWS:
        o.index_rows = parse_long("index-rows", optarg, 1000);
        break;
      case 'h':
      case O_HELP:
        usage(0);
      default:
        usage(2);
    }
  }
  if (optind < argc) {
    std::fprintf(stderr, "sf_bench: unexpected argument '%s'\n", argv[optind]);
    usage(2);
  }
  if (!have_a || !have_b) {
    std::fprintf(stderr, "sf_bench: --conn-a and --conn-b are required\n");
    usage(2);
  }
  const bool q = o.quick;
  if (o.reps < 0) o.reps = q ? 2 : 5;
  if (o.bulk_n < 0) o.bulk_n = q ? 100000 : 2000000;
  if (o.gen_n < 0) o.gen_n = q ? 100000 : 1000000;
  if (o.rt_seconds < 0) o.rt_seconds = q ? 0.3 : 3.0;
  if (o.insert_rows < 0) o.insert_rows = q ? 40000 : 4000000;
  if (o.chunk < 0) o.chunk = q ? 10000 : 100000;
  if (o.index_rows < 0) o.index_rows = q ? 100000 : 10000000;
  if (o.gen_n > 1000000) {
    std::fprintf(stderr, "sf_bench: --gen-n must be at most 1000000\n");
    std::exit(2);
  }
  return o;
}

// ------------------------------------------------------------- statistics --

std::string fmt(const char *f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

// --------------------------------------------------------------- database --

struct Layout {
  int sequence_bits = 0;
  int worker_bits = 0;
  int datacenter_bits = 0;
  int timestamp_bits = 0;
  int shift() const { return sequence_bits + worker_bits + datacenter_bits; }
  double cap_per_ms() const { return std::ldexp(1.0, sequence_bits); }
  std::string text() const {
    return std::to_string(timestamp_bits) + "/" + std::to_string(datacenter_bits) + "/" +
           std::to_string(worker_bits) + "/" + std::to_string(sequence_bits);
  }
};

pqxx::result run(pqxx::connection &c, const std::string &sql) {
  pqxx::nontransaction tx(c);
  return tx.exec(sql);
}

long long scalar_ll(pqxx::connection &c, const std::string &sql) {
  pqxx::result r = run(c, sql);
  if (r.size() != 1 || r.columns() < 1 || r[0][0].is_null())
    throw std::runtime_error("expected one non-null value from: " + sql);
  return r[0][0].as<long long>();
}

std::string scalar_text(pqxx::connection &c, const std::string &sql) {
  pqxx::result r = run(c, sql);
  if (r.size() != 1 || r.columns() < 1 || r[0][0].is_null())
    throw std::runtime_error("expected one non-null value from: " + sql);
  return r[0][0].c_str();
}

Layout read_layout(pqxx::connection &c) {
  pqxx::result r = run(
      c,
      "SELECT sequence_bits, worker_bits, datacenter_bits, timestamp_bits FROM snowflake_status");
  if (r.size() != 1) throw std::runtime_error("snowflake_status returned no row");
  Layout l;
  l.sequence_bits = r[0][0].as<int>();
  l.worker_bits = r[0][1].as<int>();
  l.datacenter_bits = r[0][2].as<int>();
  l.timestamp_bits = r[0][3].as<int>();
  return l;
}

// ------------------------------------------------------------------- /proc --

struct ProcMem {
  long hwm_kb = -1;    // VmHWM: peak resident (includes shared memory touched)
  long rss_kb = -1;    // VmRSS now
  long anon_kb = -1;   // RssAnon now: private memory
  long shmem_kb = -1;  // RssShmem now: shared memory touched
};

ProcMem read_proc_mem(long pid) {
  ProcMem m;
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line)) {
    long *dst = nullptr;
    if (line.rfind("VmHWM:", 0) == 0)
      dst = &m.hwm_kb;
    else if (line.rfind("VmRSS:", 0) == 0)
      dst = &m.rss_kb;
    else if (line.rfind("RssAnon:", 0) == 0)
      dst = &m.anon_kb;
    else if (line.rfind("RssShmem:", 0) == 0)
      dst = &m.shmem_kb;
    if (dst != nullptr) *dst = std::strtol(line.c_str() + line.find(':') + 1, nullptr, 10);
  }
  return m;
}

// Pids whose parent is ppid (empty when /proc cannot be read).
std::vector<long> children_of(long ppid) {
  std::vector<long> out;
  DIR *d = opendir("/proc");
  if (d == nullptr) return out;
  while (struct dirent *e = readdir(d)) {
    char *end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0') continue;
    std::ifstream f(std::string("/proc/") + e->d_name + "/status");
    std::string line;
    while (std::getline(f, line))
      if (line.rfind("PPid:", 0) == 0) {
        if (std::strtol(line.c_str() + 5, nullptr, 10) == ppid) out.push_back(pid);
        break;
      }
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// The process title PostgreSQL sets ("postgres: walwriter", ...), without
// the "postgres: " prefix.
std::string process_title(long pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/cmdline");
  std::string t((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::replace(t.begin(), t.end(), '\0', ' ');
  while (!t.empty() && t.back() == ' ') t.pop_back();
  if (t.rfind("postgres: ", 0) == 0) t = t.substr(10);
  return t.empty() ? "?" : t;
}

std::string loadavg() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a.empty() ? "n/a" : a + " " + b + " " + c;
}

std::string kb_text(long kb) {
  if (kb < 0) return "n/a";
  return fmt("%.1f MB", static_cast<double>(kb) / 1024.0);
}

// ------------------------------------------------------------ start gate --



struct Worker {
  long long done = 0;  // statements (round trips) or rows (inserts)
  Clock::time_point end;
  long backend_pid = -1;
  long peak_kb = -1;  // VmHWM of its backend when it finished
  std::string error;
};

// Runs `body(conn, worker, start)` on n connections at once; returns the
// elapsed seconds from the gate opening to the last worker's end.
double run_parallel(
    const std::string &conninfo, int n, const std::function<void(pqxx::connection &)> &setup,
    const std::function<void(pqxx::connection &, Worker &, Clock::time_point)> &body,
    std::vector<Worker> &workers) {
  workers.assign(static_cast<size_t>(n), Worker{});
  StartGate gate(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      Worker &w = workers[static_cast<size_t>(i)];
      std::unique_ptr<pqxx::connection> conn;
      try {
        conn = std::make_unique<pqxx::connection>(conninfo);
        w.backend_pid = static_cast<long>(scalar_ll(*conn, "SELECT pg_backend_pid()"));
        setup(*conn);
      } catch (const std::exception &e) {
        w.error = std::string("connect/prepare: ") + e.what();
        conn.reset();
      }
      gate.arrive_and_wait();
      if (!conn) return;
      try {
        body(*conn, w, gate.start());
        w.end = Clock::now();
        w.peak_kb = read_proc_mem(w.backend_pid).hwm_kb;
      } catch (const std::exception &e) {
        w.error = e.what();
      }
    });
  }
  gate.wait_all_arrived();
  gate.open();
  for (auto &t : threads) t.join();
  const Clock::time_point start = gate.start();
  Clock::time_point last = start;
  for (const auto &w : workers) {
    if (!w.error.empty()) throw std::runtime_error("worker: " + w.error);
    last = std::max(last, w.end);
  }
  return std::chrono::duration<double>(last - start).count();
}

// Server A has uuidv7() (PostgreSQL 18 and later).
bool g_uuidv7 = false;

// --------------------------------------------------------- bulk (a)-(c) --

struct BulkItem {
  std::string label;
  std::string sql;
  enum Kind { kRate, kSpan } kind;
  long long n;
  std::vector<double> ns_per_id;   // client-timed, per repetition
  std::vector<double> efficiency;  // kSpan only
  std::vector<double> ids_per_ms;  // kSpan only
  std::vector<double> span_ms;     // kSpan only
};

std::string rate_sql(const std::string &expr, long long n) {
  return "SELECT count(x) FROM (SELECT " + expr + " x FROM generate_series(1, " +
         std::to_string(n) + ")) s";
}

std::string span_sql(const std::string &from, int shift) {
  const std::string s = std::to_string(shift);
  return "SELECT count(*), (max(x) >> " + s + ") - (min(x) >> " + s + ") + 1 FROM " + from;
}

void run_item(pqxx::connection &c, BulkItem &it, const Layout &l, bool record) {
  const auto t0 = Clock::now();
  pqxx::result r = run(c, it.sql);
  const double secs = seconds_since(t0);
  if (r.size() != 1 || r[0][0].is_null()) throw std::runtime_error("no result from: " + it.sql);
  const long long count = r[0][0].as<long long>();
  if (count != it.n)
    throw std::runtime_error(it.label + ": counted " + std::to_string(count) + " rows, expected " +
                             std::to_string(it.n));
  if (!record) return;
  it.ns_per_id.push_back(secs * 1e9 / static_cast<double>(it.n));
  if (it.kind == BulkItem::kSpan) {
    if (r[0][1].is_null()) throw std::runtime_error(it.label + ": span is NULL");
    const double span = static_cast<double>(r[0][1].as<long long>());
    it.span_ms.push_back(span);
    it.ids_per_ms.push_back(static_cast<double>(count) / span);
    it.efficiency.push_back(static_cast<double>(count) / (span * l.cap_per_ms()));
  }
}

// One warm-up pass, then reps passes; the order rotates every pass so no
// variant always runs first or right after the same neighbour.
void run_bulk(pqxx::connection &c, std::vector<BulkItem> &items, const Layout &l, long reps,
              const char *name) {
  for (long rep = -1; rep < reps; ++rep) {
    std::fprintf(stderr, "  %s: %s\n", name,
                 rep < 0 ? "warm-up"
                         : ("rep " + std::to_string(rep + 1) + "/" + std::to_string(reps)).c_str());
    const size_t k = items.size();
    const size_t rot = static_cast<size_t>(rep < 0 ? 0 : rep) % k;
    for (size_t i = 0; i < k; ++i) run_item(c, items[(i + rot) % k], l, rep >= 0);
  }
}

// The label is a const char *: GCC 13+ warns (-Wdangling-reference) about a
// reference returned from a call that took a temporary std::string.
BulkItem &find_item(std::vector<BulkItem> &items, const char *label) {
  for (auto &it : items)
    if (it.label == label) return it;
  throw std::logic_error(std::string("no bulk item ") + label);
}

// Per-repetition difference a - b (the repetitions are paired).
// Per-repetition ratio a / b: the two runs of a repetition were adjacent in
// time, so a slow spell of the machine touches both alike.
std::vector<double> paired_ratio(const std::vector<double> &a, const std::vector<double> &b) {
  std::vector<double> out;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) out.push_back(a[i] / b[i]);
  return out;
}

std::vector<double> paired_net(const BulkItem &a, const BulkItem &b) {
  std::vector<double> out;
  for (size_t i = 0; i < a.ns_per_id.size() && i < b.ns_per_id.size(); ++i)
    out.push_back(a.ns_per_id[i] - b.ns_per_id[i]);
  return out;
}

// ------------------------------------------------------ round trips (d) --

struct RtResult {
  std::map<int, std::vector<double>> tps_one, tps_sf;
  long peak_kb = -1;
};

double round_trip_run(const std::string &conninfo, int clients, const std::string &sql,
                      double duration, long &peak_kb) {
  std::vector<Worker> workers;
  const auto setup = [&](pqxx::connection &c) { c.prepare("rt", sql); };
  const auto body = [&](pqxx::connection &c, Worker &w, Clock::time_point start) {
    const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(duration));
    pqxx::nontransaction tx(c);  // no BEGIN/COMMIT: each statement autocommits
    {
      pqxx::result r = sf::exec_prepared(tx, "rt");
      if (r.size() != 1 || r[0][0].is_null()) throw std::runtime_error("bad result: " + sql);
      ++w.done;
    }
    while (Clock::now() < deadline) {
      sf::exec_prepared(tx, "rt");
      ++w.done;
    }
  };
  const double elapsed = run_parallel(conninfo, clients, setup, body, workers);
  long long total = 0;
  for (const auto &w : workers) {
    total += w.done;
    peak_kb = std::max(peak_kb, w.peak_kb);
  }
  return static_cast<double>(total) / elapsed;
}

RtResult run_round_trips(const Options &o, const std::vector<int> &clients) {
  RtResult res;
  const std::string one = "SELECT 1", sf = "SELECT snowflake_nextval()";
  for (long rep = 0; rep < o.reps; ++rep) {
    std::fprintf(stderr, "  (d) round trips: rep %ld/%ld\n", rep + 1, o.reps);
    for (int c : clients) {
      const bool sf_first = (rep % 2) == 1;
      for (int k = 0; k < 2; ++k) {
        const bool is_sf = (k == 0) == sf_first;
        const double tps = round_trip_run(o.conn_a, c, is_sf ? sf : one, o.rt_seconds, res.peak_kb);
        (is_sf ? res.tps_sf : res.tps_one)[c].push_back(tps);
      }
    }
  }
  return res;
}

// --------------------------------------------------- concurrent inserts (e) --

struct InsertVariant {
  std::string key;    // "A const", "A sf", ...
  std::string table;  // t_const, t_sf, t_s1
  const std::string *conninfo;
  pqxx::connection *admin;  // TRUNCATE and counters, on the same server
};

struct InsResult {
  std::map<std::string, std::map<int, std::vector<double>>> rows_per_s;  // key -> sessions
  std::map<std::string, std::map<int, std::vector<double>>> waits;       // snowflake keys: per run
  long peak_kb = -1;
};

long long sequence_exhaustions(pqxx::connection &c) {
  return scalar_ll(c, "SELECT sequence_exhaustions FROM snowflake_status");
}

double insert_run(const Options &o, const InsertVariant &v, int sessions, long &peak_kb) {
  run(*v.admin, "TRUNCATE " + v.table);
  const long long total = o.insert_rows;
  std::vector<Worker> workers;
  const auto setup = [&](pqxx::connection &c) {
    c.prepare("ins", "INSERT INTO " + v.table +
                         "(v) SELECT g FROM generate_series($1::integer, $2::integer) g");
  };
  std::atomic<int> next_session{0};
  const auto body = [&](pqxx::connection &c, Worker &w, Clock::time_point) {
    // Session k inserts rows [lo, hi] of its share, chunk by chunk, so that
    // all sessions' statements overlap in time.
    const long long k = next_session.fetch_add(1);
    const long long lo = total * k / sessions + 1, hi = total * (k + 1) / sessions;
    pqxx::nontransaction tx(c);
    for (long long a = lo; a <= hi; a += o.chunk) {
      const long long b = std::min(hi, a + o.chunk - 1);
      pqxx::result r = sf::exec_prepared(tx, "ins", a, b);
      w.done += r.affected_rows();
    }
  };
  const double elapsed = run_parallel(*v.conninfo, sessions, setup, body, workers);
  long long rows = 0;
  for (const auto &w : workers) {
    rows += w.done;
    peak_kb = std::max(peak_kb, w.peak_kb);
  }
  if (rows != total)
    throw std::runtime_error(v.key + ": inserted " + std::to_string(rows) + " rows, expected " +
                             std::to_string(total));
  return static_cast<double>(rows) / elapsed;
}

InsResult run_inserts(const Options &o, const std::vector<InsertVariant> &variants,
                      const std::vector<int> &sessions) {
  InsResult res;
  for (long rep = 0; rep < o.reps; ++rep) {
    std::fprintf(stderr, "  (e) inserts: rep %ld/%ld\n", rep + 1, o.reps);
    for (int s : sessions) {
      const size_t k = variants.size();
      for (size_t i = 0; i < k; ++i) {
        const InsertVariant &v = variants[(i + static_cast<size_t>(rep)) % k];
        const bool sf = v.table == "t_sf";
        const long long ex0 = sf ? sequence_exhaustions(*v.admin) : 0;
        res.rows_per_s[v.key][s].push_back(insert_run(o, v, s, res.peak_kb));
        if (sf)
          res.waits[v.key][s].push_back(static_cast<double>(sequence_exhaustions(*v.admin) - ex0));
      }
    }
  }
  for (const auto &v : variants) run(*v.admin, "TRUNCATE " + v.table);
  return res;
}

// ------------------------------------------------------- index size (h) --

struct IndexKey {
  std::string label;  // the DEFAULT expression
  std::string type;   // column type
  std::string expr;
};

struct IndexResult {
  IndexKey key;
  long long rows = 0;
  long long index_bytes = -1, table_bytes = -1;
  double leaf_density = -1;  // pgstatindex's avg_leaf_density, % (-1: no pgstattuple)
  double load_s = 0;
};

// Each key type in turn: a fresh UNLOGGED table with a PRIMARY KEY on a
// column that takes its value from the DEFAULT, loaded by one session in
// statements of `chunk` rows, then measured and dropped.
std::vector<IndexResult> run_index_sizes(const Options &o, pqxx::connection &c) {
  std::vector<IndexKey> keys = {{"snowflake_nextval()", "bigint", "snowflake_nextval()"},
                                {"nextval('s100') CACHE 100", "bigint", "nextval('s100')"},
                                {"gen_random_uuid()", "uuid", "gen_random_uuid()"}};
  if (g_uuidv7) keys.push_back({"uuidv7()", "uuid", "uuidv7()"});
  bool have_pgstattuple = true;
  try {
    run(c, "CREATE EXTENSION IF NOT EXISTS pgstattuple");
  } catch (const std::exception &) {
    have_pgstattuple = false;
  }
  std::vector<IndexResult> out;
  const long long chunk = std::max<long long>(o.chunk, 1000000);
  for (const IndexKey &k : keys) {
    std::fprintf(stderr, "  (h) index size: %s, %ld rows\n", k.label.c_str(), o.index_rows);
    run(c, "DROP TABLE IF EXISTS k_index");
    run(c, "CREATE UNLOGGED TABLE k_index (id " + k.type + " PRIMARY KEY DEFAULT " + k.expr +
               ", v integer)");
    IndexResult r;
    r.key = k;
    const auto t0 = Clock::now();
    for (long long a = 1; a <= o.index_rows; a += chunk) {
      const long long b = std::min<long long>(o.index_rows, a + chunk - 1);
      r.rows += static_cast<long long>(
          run(c, "INSERT INTO k_index (v) SELECT g FROM generate_series(" + std::to_string(a) +
                     ", " + std::to_string(b) + ") g")
              .affected_rows());
    }
    r.load_s = seconds_since(t0);
    if (r.rows != o.index_rows)
      throw std::runtime_error(k.label + ": inserted " + std::to_string(r.rows) + " rows");
    r.index_bytes = scalar_ll(c, "SELECT pg_relation_size('k_index_pkey')");
    r.table_bytes = scalar_ll(c, "SELECT pg_relation_size('k_index')");
    if (have_pgstattuple)
      r.leaf_density = std::strtod(
          scalar_text(c, "SELECT avg_leaf_density FROM pgstatindex('k_index_pkey')").c_str(),
          nullptr);
    run(c, "DROP TABLE k_index");
    out.push_back(r);
  }
  return out;
}

// ----------------------------------------------------------- memory (f) --

struct ServerMem {
  long long shmem_bytes = -1;
  std::vector<std::string> shmem_rows;  // "name: N bytes"
  struct Proc {
    long pid;
    std::string type;
    ProcMem mem;
  };
  std::vector<Proc> procs;
};

ServerMem read_server_mem(pqxx::connection &c) {
  ServerMem m;
  pqxx::result r = run(c,
                       "SELECT name, size, allocated_size FROM pg_shmem_allocations "
                       "WHERE name ILIKE '%snowflake%' ORDER BY name");
  for (const auto &row : r) {
    m.shmem_rows.push_back(std::string(row[0].c_str()) + ": size " + row[1].c_str() +
                           " B, allocated " + row[2].c_str() + " B");
    if (std::string(row[0].c_str()) == "snowflake") m.shmem_bytes = row[1].as<long long>();
  }
  // The postmaster's pid is postmaster.pid's first line (pg_read_file needs
  // superuser).  Its children, found in /proc, include the background worker,
  // which pg_stat_activity does not list (it has no database connection).
  const long self = static_cast<long>(scalar_ll(c, "SELECT pg_backend_pid()"));
  long postmaster = -1;
  try {
    postmaster = std::strtol(
        scalar_text(c, "SELECT split_part(pg_read_file('postmaster.pid'), E'\\n', 1)").c_str(),
        nullptr, 10);
  } catch (const pqxx::sql_error &) {
  }
  if (postmaster > 0) {
    m.procs.push_back({postmaster, "postmaster", {}});
    for (long pid : children_of(postmaster))
      m.procs.push_back({pid, process_title(pid) + (pid == self ? " (the bulk session)" : ""), {}});
  } else {
    pqxx::result a = run(c, "SELECT pid, backend_type FROM pg_stat_activity ORDER BY pid");
    for (const auto &row : a) {
      const long pid = row[0].as<long>();
      m.procs.push_back(
          {pid, std::string(row[1].c_str()) + (pid == self ? " (the bulk session)" : ""), {}});
    }
  }
  for (auto &p : m.procs) p.mem = read_proc_mem(p.pid);
  return m;
}

// ---------------------------------------------------------------- output --

struct Ratio {
  std::string figure;
  double value;
  std::string target;  // "" = no target (context)
  bool at_least = true;
  double bound = 0;
  std::string why = "";  // why a missed target cannot be met (printed with the verdict)
};

std::string verdict(const Ratio &r) {
  if (r.target.empty()) return "(context)";
  if (std::isnan(r.value)) return "n/a";
  if (r.at_least ? r.value >= r.bound : r.value <= r.bound) return "met";
  return r.why.empty() ? "missed" : "missed (" + r.why + ")";
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      const size_t p = line.find(':');
      if (p != std::string::npos) return line.substr(line.find_first_not_of(" \t", p + 1));
    }
  return "unknown";
}

// The bulk variants: (a)/(c) on A, (b) on B (and the spans on B as context).
std::vector<BulkItem> bulk_items(const Options &o, const Layout &l, bool server_a) {
  const long long n = o.bulk_n;
  const auto rate = [n](const std::string &label, const std::string &expr) {
    return BulkItem{label, rate_sql(expr, n), BulkItem::kRate, n, {}, {}, {}, {}};
  };
  std::vector<BulkItem> v = {rate("1", "1"), rate("snowflake_nextval()", "snowflake_nextval()")};
  if (server_a) {
    v.push_back(rate("nextval('s1')  CACHE 1", "nextval('s1')"));
    v.push_back(rate("nextval('s100') CACHE 100", "nextval('s100')"));
    v.push_back(rate("gen_random_uuid()", "gen_random_uuid()"));
    if (g_uuidv7) v.push_back(rate("uuidv7()", "uuidv7()"));
  } else {
    v.push_back(rate("nextval('s100') CACHE 100", "nextval('s100')"));
    v.push_back(rate("nextval('s1')  CACHE 1", "nextval('s1')"));
  }
  v.push_back({"span: snowflake_nextval()",
               span_sql("(SELECT snowflake_nextval() x FROM generate_series(1, " +
                            std::to_string(n) + ")) s",
                        l.shift()),
               BulkItem::kSpan,
               n,
               {},
               {},
               {},
               {}});
  v.push_back({"span: snowflake_generate()",
               span_sql("snowflake_generate(" + std::to_string(o.gen_n) + ") x", l.shift()),
               BulkItem::kSpan,
               o.gen_n,
               {},
               {},
               {},
               {}});
  return v;
}

void print_rates(std::vector<BulkItem> &items) {
  std::printf(
      "| expression | ns/id | M ids/s | net ns/id above `1` (paired) |\n|---|---|---|---|\n");
  const BulkItem &floor = find_item(items, "1");
  for (auto &it : items) {
    if (it.kind != BulkItem::kRate) continue;
    std::printf("| `%s` | %s | %.2f | %s |\n", it.label.c_str(), spread(it.ns_per_id, 1).c_str(),
                1e3 / median(it.ns_per_id),
                it.label == "1" ? "—" : spread(paired_net(it, floor), 1).c_str());
  }
  std::printf("\n");
}

void print_span(const char *server, const BulkItem &it) {
  std::printf("| %s | `%s` | %lld | %s | %s | %s | %s |\n", server, it.label.substr(6).c_str(),
              it.n, spread(it.span_ms, 0).c_str(), spread(it.ids_per_ms, 0).c_str(),
              spread(it.efficiency, 3).c_str(), spread(it.ns_per_id, 1).c_str());
}

void print_mem(const char *server, const ServerMem &m) {
  std::printf("Server %s shared memory requested by the extension (pg_shmem_allocations):\n",
              server);
  if (m.shmem_rows.empty()) std::printf("  (no allocation named like snowflake)\n");
  for (const auto &r : m.shmem_rows) std::printf("  %s\n", r.c_str());
  std::printf(
      "\n| server %s process | pid | peak RSS (VmHWM) | RSS now | private (RssAnon) | "
      "shared touched (RssShmem) |\n|---|---|---|---|---|---|\n",
      server);
  for (const auto &p : m.procs)
    std::printf("| %s | %ld | %s | %s | %s | %s |\n", p.type.c_str(), p.pid,
                kb_text(p.mem.hwm_kb).c_str(), kb_text(p.mem.rss_kb).c_str(),
                kb_text(p.mem.anon_kb).c_str(), kb_text(p.mem.shmem_kb).c_str());
  std::printf("\n");
}

std::string plural(int k, const char *word) {
  return std::to_string(k) + " " + word + (k == 1 ? "" : "s");
}

// ------------------------------------------------------ the SQL edition (i) --

// Its snowflake_nextval(), in the schema bench.sh installs it into.
const char *const kSqlNextval = "sqled.snowflake_nextval()";
// bench.sh's PL/pgSQL function that only returns nextval('s1').
const char *const kPlpgsqlNextval = "bench_plpgsql_nextval()";
// Its snowflake_generate(n), n ids in one call (at most 1,000,000 a call).
const char *const kSqlGenerate = "sqled.snowflake_generate(n)";
const char *const kThreeReads =
    "pg_sequence_last_value('bench_bound') + nextval('s1') + "
    "(date_part('epoch', clock_timestamp()) * 1000)::bigint";

// n ids of the SQL edition's snowflake_generate, counted: one call, or the
// fewest calls of at most 1,000,000 each (the first takes the remainder),
// joined laterally, so that each is a call of its own.
std::string generate_sql(long long n) {
  const long long calls = (n + 999999) / 1000000;
  if (calls <= 1) return "SELECT count(x) FROM sqled.snowflake_generate(" + std::to_string(n) + ") x";
  const long long each = n / calls;
  return "SELECT count(x) FROM generate_series(1, " + std::to_string(calls) +
         ") k, LATERAL sqled.snowflake_generate(CASE k WHEN 1 THEN " +
         std::to_string(n - each * (calls - 1)) + " ELSE " + std::to_string(each) + " END) x";
}

// k sessions at once, each one bulk query of n / k ids of `expr`; the rate of
// all of them together (ids / (gate opening to the last session's end)).
double sessions_rate(const std::string &conninfo, const std::string &expr, int k, long long n) {
  std::vector<Worker> workers;
  const long long each = n / k;
  const std::string sql = rate_sql(expr, each);
  const auto body = [&](pqxx::connection &c, Worker &w, Clock::time_point) {
    if (scalar_ll(c, sql) != each) throw std::runtime_error("short count from: " + sql);
    w.done = each;
  };
  const double elapsed = run_parallel(conninfo, k, [](pqxx::connection &) {}, body, workers);
  long long total = 0;
  for (const auto &w : workers) {
    if (!w.error.empty()) throw std::runtime_error("session: " + w.error);
    total += w.done;
  }
  return static_cast<double>(total) / elapsed;
}

void run_sql_edition(const Options &o, pqxx::connection &ca, std::vector<Ratio> &ratios) {
  if (scalar_text(ca, "SELECT coalesce(to_regprocedure('" + std::string(kSqlNextval) +
                          "')::text, '-')") == "-") {
    std::printf("## (i) The SQL edition\n\nnot installed on server A (schema sqled): skipped\n\n");
    return;
  }
  std::fprintf(stderr, "sf_bench: the SQL edition\n");
  // One backend, bulk, side by side with its floor and nextval() CACHE 1.
  const long long n = o.bulk_n;
  const auto rate = [n](const std::string &label, const std::string &expr) {
    return BulkItem{label, rate_sql(expr, n), BulkItem::kRate, n, {}, {}, {}, {}};
  };
  // Two ceilings for any SQL-only design: a PL/pgSQL function that returns
  // nextval() and does nothing else (no bound, no clock), and the three reads
  // an id needs (a bound, the counter, the clock) written into the query
  // itself, with no function call at all.
  std::vector<BulkItem> items = {rate("1", "1"), rate(kSqlNextval, kSqlNextval),
                                 rate("nextval('s1')  CACHE 1", "nextval('s1')"),
                                 rate(kPlpgsqlNextval, kPlpgsqlNextval),
                                 rate(kThreeReads, kThreeReads),
                                 {kSqlGenerate, generate_sql(n), BulkItem::kRate, n, {}, {}, {}, {}}};
  const Layout none;
  run_bulk(ca, items, none, o.reps, "(i) server A");
  // 1 and 4 sessions (the SQL edition, and nextval() CACHE 1 for context),
  // the four runs of a repetition in rotating order.
  std::map<std::string, std::map<int, std::vector<double>>> sess;
  const std::vector<std::pair<std::string, std::string>> exprs = {{"sql", kSqlNextval},
                                                                  {"s1", "nextval('s1')"}};
  for (long rep = 0; rep < o.reps; ++rep) {
    std::fprintf(stderr, "  (i) sessions: rep %ld/%ld\n", rep + 1, o.reps);
    for (size_t i = 0; i < 4; ++i) {
      const size_t j = (i + static_cast<size_t>(rep)) % 4;
      const auto &e = exprs[j / 2];
      const int k = (j % 2) == 0 ? 1 : 4;
      sess[e.first][k].push_back(sessions_rate(o.conn_a, e.second, k, n));
    }
  }
  // One id per round trip.
  std::map<std::string, std::vector<double>> rt;
  for (long rep = 0; rep < o.reps; ++rep) {
    long peak = -1;
    for (int k = 0; k < 2; ++k) {
      const bool is_sql = (k == 0) == ((rep % 2) == 0);
      rt[is_sql ? "sql" : "s1"].push_back(round_trip_run(
          o.conn_a, 1, std::string("SELECT ") + (is_sql ? kSqlNextval : "nextval('s1')"),
          o.rt_seconds, peak));
    }
  }

  std::printf("## (i) The SQL edition, server A\n\n");
  std::printf(
      "One backend, `SELECT count(x) FROM (SELECT <expr> x FROM generate_series(1, %lld)) s`:\n\n",
      n);
  print_rates(items);
  const std::vector<double> r1 = paired_ratio(find_item(items, "nextval('s1')  CACHE 1").ns_per_id,
                                              find_item(items, kSqlNextval).ns_per_id);
  std::printf("ids/s of `%s` ÷ ids/s of `nextval('s1')` CACHE 1 (paired): %s\n\n", kSqlNextval,
              spread(r1, 3).c_str());
  const BulkItem &s1_item = find_item(items, "nextval('s1')  CACHE 1");
  const std::vector<double> r_pl =
      paired_ratio(s1_item.ns_per_id, find_item(items, kPlpgsqlNextval).ns_per_id);
  const std::vector<double> r_reads =
      paired_ratio(s1_item.ns_per_id, find_item(items, kThreeReads).ns_per_id);
  std::printf(
      "Ceilings, ids/s ÷ ids/s of `nextval('s1')` (paired): a PL/pgSQL function that only "
      "returns `nextval('s1')` %s; a bound, the counter and the clock read in the query itself, "
      "no function call, %s\n\n",
      spread(r_pl, 3).c_str(), spread(r_reads, 3).c_str());
  // The bulk form beside the ceiling and nextval() CACHE 1.
  const BulkItem &gen_item = find_item(items, kSqlGenerate);
  const std::vector<double> r_gen_pl =
      paired_ratio(find_item(items, kPlpgsqlNextval).ns_per_id, gen_item.ns_per_id);
  const std::vector<double> r_gen_s1 = paired_ratio(s1_item.ns_per_id, gen_item.ns_per_id);
  std::printf(
      "The bulk form, `%s`: ids/s ÷ ids/s of the PL/pgSQL function that only returns "
      "`nextval('s1')` (paired) %s; ÷ ids/s of `nextval('s1')` CACHE 1 (paired) %s\n\n",
      generate_sql(n).c_str(), spread(r_gen_pl, 3).c_str(), spread(r_gen_s1, 3).c_str());
  std::printf(
      "Sessions together, %lld ids split between them, one bulk query each, M ids/s:\n\n"
      "| sessions | SQL edition | ÷ 1 session (paired) | nextval() CACHE 1 | ÷ 1 session "
      "(paired) |\n|---|---|---|---|---|\n",
      n);
  std::vector<double> sql4, s14;
  for (int k : {1, 4}) {
    const auto &a = sess["sql"][k];
    const auto &b = sess["s1"][k];
    const std::vector<double> ra = paired_ratio(a, sess["sql"][1]);
    const std::vector<double> rb = paired_ratio(b, sess["s1"][1]);
    std::vector<double> am, bm;
    for (double x : a) am.push_back(x / 1e6);
    for (double x : b) bm.push_back(x / 1e6);
    std::printf("| %d | %s | %s | %s | %s |\n", k, spread(am, 2).c_str(), spread(ra, 3).c_str(),
                spread(bm, 2).c_str(), spread(rb, 3).c_str());
    if (k == 4) {
      sql4 = ra;
      s14 = rb;
    }
  }
  const std::vector<double> rrt = paired_ratio(rt["sql"], rt["s1"]);
  std::printf(
      "\nOne id per round trip (prepared, autocommit, 1 client, %.1f s per run): `SELECT %s` "
      "%s tps, `SELECT nextval('s1')` %s tps, ratio (paired) %s\n\n",
      o.rt_seconds, kSqlNextval, spread(rt["sql"], 0).c_str(), spread(rt["s1"], 0).c_str(),
      spread(rrt, 3).c_str());
  Ratio bulk{"(i) A: SQL edition ids/s ÷ nextval() CACHE 1 ids/s, one backend", median(r1),
             "≥ 0.5", true, 0.5};
  if (median(r1) < 0.5)
    bulk.why = fmt("a PL/pgSQL function that only returns nextval() reaches %.2f", median(r_pl)) +
               fmt(", the reads an id needs, written in the query, %.2f", median(r_reads));
  ratios.push_back(bulk);
  ratios.push_back({"(i) A: SQL edition snowflake_generate(n) ids/s ÷ PL/pgSQL nextval() ceiling, "
                    "one backend",
                    median(r_gen_pl), "≥ 0.8", true, 0.8});
  ratios.push_back({"(i) A: SQL edition snowflake_generate(n) ids/s ÷ nextval() CACHE 1 ids/s, "
                    "one backend",
                    median(r_gen_s1), "", true, 0});
  ratios.push_back(
      {"(i) A: SQL edition ids/s, 4 sessions ÷ 1 session", median(sql4), "≥ 1.0", true, 1.0});
  ratios.push_back(
      {"(i) A: nextval() CACHE 1 ids/s, 4 sessions ÷ 1 session", median(s14), "", true, 0});
  ratios.push_back({"(i) A: round trips tps SQL edition ÷ nextval() CACHE 1, 1 client",
                    median(rrt), "", true, 0});
  std::fflush(stdout);
}

int bench(const Options &o) {
  const std::vector<int> counts = {1, 2, 8};
  std::printf("# sf_bench: snowflake vs the alternatives (%s mode)\n\n",
              o.quick ? "quick" : "full");
  std::fflush(stdout);

  const std::string load_start = loadavg();
  pqxx::connection ca(o.conn_a), cb(o.conn_b);
  g_uuidv7 = scalar_ll(ca, "SELECT current_setting('server_version_num')::int") >= 180000;
  const Layout la = read_layout(ca), lb = read_layout(cb);
  const auto show = [](pqxx::connection &c, const char *name) {
    return scalar_text(c, std::string("SHOW ") + name);
  };
  const std::string settings_a = "jit=" + show(ca, "jit") + " fsync=" + show(ca, "fsync") +
                                 " autovacuum=" + show(ca, "autovacuum") +
                                 " shared_buffers=" + show(ca, "shared_buffers") +
                                 " work_mem=" + show(ca, "work_mem");
  const std::string settings_b = "jit=" + show(cb, "jit") + " fsync=" + show(cb, "fsync");

  std::printf(
      "Servers: A layout %s (timestamp/datacenter/worker/sequence bits, cap %.0f ids/ms "
      "= %.1f ns/id), B layout %s (cap %.0f ids/ms = %.2f ns/id).\n",
      la.text().c_str(), la.cap_per_ms(), 1e6 / la.cap_per_ms(), lb.text().c_str(), lb.cap_per_ms(),
      1e6 / lb.cap_per_ms());
  {
    const double load1 = std::strtod(load_start.c_str(), nullptr);
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (load1 > 0.5 * static_cast<double>(cpus))
      std::printf(
          "WARNING: load average %.2f at start on %ld CPUs: other work is competing for "
          "the CPUs, so these figures are noisy and not representative.\n",
          load1, cpus);
  }
  std::printf(
      "Each figure: median [min..max] of %ld repetitions, variants alternating (order "
      "rotating) within each repetition; ratios and net costs are medians of the per-repetition "
      "values.\n\n",
      o.reps);
  std::fflush(stdout);

  std::vector<Ratio> ratios;

  // ---- (a) + (c) on A, (b) on B: bulk, one backend each.
  if (o.run_bulk) {
    std::vector<BulkItem> bulk_a = bulk_items(o, la, true), bulk_b = bulk_items(o, lb, false);
    std::fprintf(stderr, "sf_bench: bulk section\n");
    run_bulk(ca, bulk_a, la, o.reps, "(a)(c) server A");
    run_bulk(cb, bulk_b, lb, o.reps, "(b) server B");

    std::printf("## (a) Single-backend bulk rate, server A\n\n");
    std::printf(
        "`SELECT count(x) FROM (SELECT <expr> x FROM generate_series(1, %ld)) s`, "
        "whole query timed by the client (includes materialising generate_series).\n\n",
        o.bulk_n);
    print_rates(bulk_a);

    std::printf(
        "## (b) Net cost per id above the floor, server B (cap %.0f ids/ms does not "
        "bind)\n\n",
        lb.cap_per_ms());
    print_rates(bulk_b);
    const BulkItem &fb = find_item(bulk_b, "1");
    const double net_sf = median(paired_net(find_item(bulk_b, "snowflake_nextval()"), fb));
    const double net_s100 = median(paired_net(find_item(bulk_b, "nextval('s100') CACHE 100"), fb));
    const double net_s1 = median(paired_net(find_item(bulk_b, "nextval('s1')  CACHE 1"), fb));
    const double net_ratio = net_s100 > 0 ? net_sf / net_s100 : std::nan("");
    std::printf(
        "net snowflake_nextval() %.1f ns, nextval CACHE 100 %.1f ns, nextval CACHE 1 "
        "%.1f ns; snowflake / CACHE 100 = %.3f\n\n",
        net_sf, net_s100, net_s1, net_ratio);

    std::printf(
        "## (c) Cap efficiency from the ids: count / (span of embedded ms x "
        "2^sequence_bits)\n\n");
    std::printf(
        "| server | source | ids | span ms | ids/ms | efficiency | query ns/id |\n"
        "|---|---|---|---|---|---|---|\n");
    for (auto &it : bulk_a)
      if (it.kind == BulkItem::kSpan) print_span("A", it);
    for (auto &it : bulk_b)
      if (it.kind == BulkItem::kSpan) print_span("B", it);
    std::printf(
        "\n(B's cap, %.0f ids/ms, is far above one backend's rate: B's efficiencies are "
        "context, not targets; its ids/ms is the generator's own rate.)\n\n",
        lb.cap_per_ms());

    const double cap_ns = 1e6 / la.cap_per_ms();
    ratios.push_back({"(a) A: snowflake_nextval() whole-query rate ÷ cap (" + fmt("%.1f", cap_ns) +
                          " ns/id ÷ measured ns/id)",
                      cap_ns / median(find_item(bulk_a, "snowflake_nextval()").ns_per_id), "", true,
                      0});
    ratios.push_back({"(a) A: nextval CACHE 1 whole-query rate ÷ default-layout cap",
                      cap_ns / median(find_item(bulk_a, "nextval('s1')  CACHE 1").ns_per_id), "",
                      true, 0});
    ratios.push_back({"(b) B: net ns/id snowflake_nextval() ÷ nextval CACHE 100", net_ratio,
                      "≤ 0.5", false, 0.5});
    ratios.push_back({"(c) A: cap efficiency, snowflake_nextval() x " + std::to_string(o.bulk_n),
                      median(find_item(bulk_a, "span: snowflake_nextval()").efficiency), "≥ 0.95",
                      true, 0.95});
    ratios.push_back({"(c) A: cap efficiency, snowflake_generate(" + std::to_string(o.gen_n) + ")",
                      median(find_item(bulk_a, "span: snowflake_generate()").efficiency), "≥ 0.95",
                      true, 0.95});
    std::fflush(stdout);
  }

  long rt_peak = -1, ins_peak = -1;
  if (o.run_rt) {
    std::fprintf(stderr, "sf_bench: round trips\n");
    const RtResult rt = run_round_trips(o, counts);
    rt_peak = rt.peak_kb;
    std::printf(
        "## (d) Round trips, server A: prepared statement, autocommit (no BEGIN/COMMIT), "
        "%.1f s per run, client threads on the same machine\n\n",
        o.rt_seconds);
    std::printf(
        "| clients | `SELECT 1` tps | `SELECT snowflake_nextval()` tps | ratio (paired per rep) |\n"
        "|---|---|---|---|\n");
    for (int c : counts) {
      const auto &one = rt.tps_one.at(c);
      const auto &sf = rt.tps_sf.at(c);
      const std::vector<double> pr = paired_ratio(sf, one);
      const double ratio = median(pr);
      std::printf("| %d | %s | %s | %s |\n", c, spread(one, 0).c_str(), spread(sf, 0).c_str(),
                  spread(pr, 3).c_str());
      ratios.push_back(
          {"(d) A: round trips tps snowflake_nextval() ÷ SELECT 1, " + plural(c, "client"), ratio,
           c == 1 ? "" : "≥ 0.95", true, 0.95});
    }
    std::printf("\n");
    std::fflush(stdout);
  }

  if (o.run_insert) {
    std::fprintf(stderr, "sf_bench: concurrent inserts\n");
    std::vector<InsertVariant> variants = {
        {"A const", "t_const", &o.conn_a, &ca}, {"A sf", "t_sf", &o.conn_a, &ca},
        {"A s1", "t_s1", &o.conn_a, &ca},       {"B const", "t_const", &o.conn_b, &cb},
        {"B sf", "t_sf", &o.conn_b, &cb},
    };
    variants.push_back({"A uuid4", "t_uuid4", &o.conn_a, &ca});
    if (g_uuidv7) variants.push_back({"A uuid7", "t_uuid7", &o.conn_a, &ca});
    const InsResult ins = run_inserts(o, variants, counts);
    ins_peak = ins.peak_kb;
    std::printf(
        "## (e) Concurrent inserts: %ld rows per run shared by the sessions, %ld rows per "
        "INSERT ... SELECT, one UNLOGGED table per variant, no index, TRUNCATE before each run; "
        "the variants of both servers alternate\n\n",
        o.insert_rows, o.chunk);
    const double cap_rows = la.cap_per_ms() * 1000.0;
    std::printf("Server A (default layout: the cap is %.3f M ids/s per node)\n\n", cap_rows / 1e6);
    std::printf(
        "| sessions | constant id rows/s | snowflake_nextval() rows/s | ratio (paired) | "
        "nextval('s1') rows/s | ratio (paired) | snowflake waits for the next ms per run |\n"
        "|---|---|---|---|---|---|---|\n");
    std::vector<Ratio> a_ratios, b_ratios, s1_ratios;
    for (int s : counts) {
      const auto &fl = ins.rows_per_s.at("A const").at(s);
      const auto &sf = ins.rows_per_s.at("A sf").at(s);
      const auto &s1 = ins.rows_per_s.at("A s1").at(s);
      const std::vector<double> pr_sf = paired_ratio(sf, fl), pr_s1 = paired_ratio(s1, fl);
      std::printf("| %d | %s | %s | %s | %s | %s | %s |\n", s, spread(fl, 0).c_str(),
                  spread(sf, 0).c_str(), spread(pr_sf, 3).c_str(), spread(s1, 0).c_str(),
                  spread(pr_s1, 3).c_str(), spread(ins.waits.at("A sf").at(s), 0).c_str());
      Ratio r{"(e) A: insert rows/s snowflake_nextval() ÷ constant id, " + plural(s, "session"),
              median(pr_sf), "≥ 0.95", true, 0.95};
      // A floor above cap / 0.95 makes the target unreachable for this layout.
      if (0.95 * median(fl) > cap_rows)
        r.why = fmt("0.95 × floor = %.2f M/s > the layout's cap", 0.95 * median(fl) / 1e6);
      a_ratios.push_back(r);
      s1_ratios.push_back(
          {"(e) A: insert rows/s nextval CACHE 1 ÷ constant id, " + plural(s, "session"),
           median(pr_s1), "", true, 0});
    }
    // UUID keys on A, against the same constant-id floor (uuidv7() on 18).
    std::printf(
        "\nServer A, UUID keys (a uuid column with the DEFAULT)\n\n"
        "| sessions | constant id rows/s | gen_random_uuid() rows/s | ratio (paired) |%s\n"
        "|---|---|---|---|%s\n",
        g_uuidv7 ? " uuidv7() rows/s | ratio (paired) |" : "", g_uuidv7 ? "---|---|" : "");
    for (int s : counts) {
      const auto &fl = ins.rows_per_s.at("A const").at(s);
      const auto &u4 = ins.rows_per_s.at("A uuid4").at(s);
      std::printf("| %d | %s | %s | %s |", s, spread(fl, 0).c_str(), spread(u4, 0).c_str(),
                  spread(paired_ratio(u4, fl), 3).c_str());
      if (g_uuidv7) {
        const auto &u7 = ins.rows_per_s.at("A uuid7").at(s);
        std::printf(" %s | %s |", spread(u7, 0).c_str(), spread(paired_ratio(u7, fl), 3).c_str());
      }
      std::printf("\n");
    }
    std::printf("\nServer B (sequence_bits 16: the cap, %.1f M ids/s, does not bind)\n\n",
                lb.cap_per_ms() * 1000.0 / 1e6);
    std::printf(
        "| sessions | constant id rows/s | snowflake_nextval() rows/s | ratio (paired) | "
        "snowflake waits for the next ms per run |\n|---|---|---|---|---|\n");
    for (int s : counts) {
      const auto &fl = ins.rows_per_s.at("B const").at(s);
      const auto &sf = ins.rows_per_s.at("B sf").at(s);
      const std::vector<double> pr_sf = paired_ratio(sf, fl);
      std::printf("| %d | %s | %s | %s | %s |\n", s, spread(fl, 0).c_str(), spread(sf, 0).c_str(),
                  spread(pr_sf, 3).c_str(), spread(ins.waits.at("B sf").at(s), 0).c_str());
      b_ratios.push_back(
          {"(e) B: insert rows/s snowflake_nextval() ÷ constant id, " + plural(s, "session"),
           median(pr_sf), "≥ 0.95", true, 0.95});
    }
    for (auto *v : {&a_ratios, &b_ratios, &s1_ratios})
      ratios.insert(ratios.end(), v->begin(), v->end());
    std::printf("\n");
    std::fflush(stdout);
  }

  if (o.run_mem) {
    std::printf("## (f) Memory\n\n");
    print_mem("A", read_server_mem(ca));
    print_mem("B", read_server_mem(cb));
    if (rt_peak >= 0 || ins_peak >= 0)
      std::printf(
          "Peak RSS of the backends, read when each finished: round-trip sessions %s, "
          "insert sessions %s (VmHWM counts the shared_buffers pages a process touched; "
          "RssAnon is its private memory).\n\n",
          kb_text(rt_peak).c_str(), kb_text(ins_peak).c_str());
  }

  if (o.run_index) {
    std::fprintf(stderr, "sf_bench: index sizes\n");
    const std::vector<IndexResult> idx = run_index_sizes(o, ca);
    std::printf(
        "## (h) Primary-key size after %ld rows, server A: one UNLOGGED table per key type "
        "(id PRIMARY KEY DEFAULT <expr>, v integer), loaded by one session\n\n",
        o.index_rows);
    std::printf(
        "| key | type | primary key size | bytes per row | leaf density | table size | load "
        "rows/s |\n|---|---|---|---|---|---|---|\n");
    for (const auto &r : idx)
      std::printf("| `%s` | %s | %.1f MB | %.1f | %s | %.1f MB | %.0f |\n", r.key.label.c_str(),
                  r.key.type.c_str(), static_cast<double>(r.index_bytes) / 1048576.0,
                  static_cast<double>(r.index_bytes) / static_cast<double>(r.rows),
                  r.leaf_density < 0 ? "n/a" : fmt("%.1f %%", r.leaf_density).c_str(),
                  static_cast<double>(r.table_bytes) / 1048576.0,
                  static_cast<double>(r.rows) / r.load_s);
    std::printf(
        "\n(leaf density: pgstattuple's avg_leaf_density, how full the index's leaf pages are; "
        "one load per key type, so the rates are single measurements.)\n\n");
    std::fflush(stdout);
  }

  if (o.run_sql) run_sql_edition(o, ca, ratios);

  const char *counters =
      "SELECT ids_issued, sequence_exhaustions, durable_writes FROM snowflake_status";
  pqxx::result st_a = run(ca, counters), st_b = run(cb, counters);
  std::printf(
      "Generator counters at the end: A ids_issued %s, sequence_exhaustions %s, "
      "durable_writes %s; B ids_issued %s, sequence_exhaustions %s, durable_writes %s\n\n",
      st_a[0][0].c_str(), st_a[0][1].c_str(), st_a[0][2].c_str(), st_b[0][0].c_str(),
      st_b[0][1].c_str(), st_b[0][2].c_str());

  // ---- the one table of ratios
  std::printf("## Ratios\n\n| figure | measured | target | verdict |\n|---|---|---|---|\n");
  int met = 0, missed = 0;
  for (const auto &r : ratios) {
    const std::string v = verdict(r);
    if (v == "met") ++met;
    if (v.rfind("missed", 0) == 0 || v == "n/a") ++missed;
    std::printf("| %s | %.3f | %s | %s |\n", r.figure.c_str(), r.value,
                r.target.empty() ? "—" : r.target.c_str(), v.c_str());
  }
  std::printf(
      "\ntargets: %d met, %d missed (reported only: the exit status reflects errors, "
      "not targets)\n\n",
      met, missed);

  // ---- machine facts
  struct utsname u {};
  uname(&u);
  std::printf("## Machine and settings\n\n");
  std::printf("- nproc: %ld; CPU: %s; kernel: %s %s\n", sysconf(_SC_NPROCESSORS_ONLN),
              cpu_model().c_str(), u.sysname, u.release);
  std::printf("- PostgreSQL: %s\n", scalar_text(ca, "SELECT version()").c_str());
  std::printf("- libpqxx %s\n", PQXX_VERSION);
  std::printf("- load average (1/5/15 min) at start: %s; at end: %s\n", load_start.c_str(),
              loadavg().c_str());
  std::printf("- server A: %s; server B: %s\n", settings_a.c_str(), settings_b.c_str());
  for (const auto &note : o.notes) std::printf("- %s\n", note.c_str());
  std::printf("- sf_bench command: %s\n", o.command_line.c_str());
  std::fflush(stdout);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  const Options opt = parse_args(argc, argv);
  try {
    return bench(opt);
  } catch (const std::exception &e) {
    std::fflush(stdout);
    std::fprintf(stderr, "sf_bench: error: %s\n", e.what());
    return 2;
  }
}
