// sf_concurrency: concurrency / uniqueness / ordering test client for the
// snowflake extension (see /work/shared/SPEC.md).
//
// Opens --per-conn sessions for every --conn string, waits until every session
// has connected, then lets all of them fetch ids at the same time, --batch ids
// per round trip, until each has --ids ids. Afterwards it checks that
//   (a) every session's ids are strictly increasing in the order received,
//   (b) all ids across all sessions are distinct,
//   (c) every session received exactly its ids,
//   (d) optionally (--min-id X) every id is > X.
//
// Exit status: 0 all checks passed, 1 a check failed, 2 error (server error,
// connection failure, bad usage).

#include <pqxx/pqxx>

#include <getopt.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cli.hpp"
#include "pqxx_compat.hpp"
#include "start_gate.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::vector<std::string> conns;
  long per_conn = 4;
  long ids = 100000;
  long batch = 1000;
  std::string sql = "SELECT snowflake_nextval() FROM generate_series(1,$1)";
  std::string out;
  bool reconnect = false;
  double reconnect_timeout = 60.0;
  bool have_min_id = false;
  int64_t min_id = 0;
  // With --reconnect: stop once this many ids arrived after the first
  // reconnect (0: stop at --ids).  Lets a test crash the server at any time.
  long after_reconnect = 0;
};

const char *const kStmt = "sf_fetch";



struct Session {
  size_t index = 0;
  std::string conninfo;
  std::vector<int64_t> ids;
  long reconnects = 0;
  // ids.size() at each successful reconnect: ids before the first mark came
  // from the server as it was before the connection was lost.
  std::vector<size_t> reconnect_marks;

  size_t ids_after_reconnect() const {
    return reconnect_marks.empty() ? 0 : ids.size() - reconnect_marks.front();
  }
  bool done(const Options &opt) const {
    if (opt.after_reconnect > 0)
      return !reconnect_marks.empty() &&
             ids_after_reconnect() >= static_cast<size_t>(opt.after_reconnect);
    return ids.size() >= static_cast<size_t>(opt.ids);
  }
  bool failed = false;
  std::string error;
};

std::atomic<bool> g_abort{false};

// Does this exception mean the connection is gone (so --reconnect applies)?
bool connection_lost(const std::exception &e, const pqxx::connection *conn) {
  if (dynamic_cast<const pqxx::broken_connection *>(&e) != nullptr) return true;
  if (conn == nullptr || !conn->is_open()) return true;
  if (auto *se = dynamic_cast<const pqxx::sql_error *>(&e)) {
    const std::string st(se->sqlstate());
    // 08xxx connection exception; 57P01 admin_shutdown, 57P02 crash_shutdown,
    // 57P03 cannot_connect_now.
    if (st.compare(0, 2, "08") == 0 || st == "57P01" || st == "57P02" ||
        st == "57P03")
      return true;
  }
  return false;
}

std::unique_ptr<pqxx::connection> open_conn(const Options &opt,
                                            const std::string &conninfo) {
  auto c = std::make_unique<pqxx::connection>(conninfo);
  c->prepare(kStmt, opt.sql);
  return c;
}

// Connect, retrying for up to reconnect_timeout seconds if --reconnect.
// Returns nullptr (with s.error set) on failure.
std::unique_ptr<pqxx::connection> connect_with_retry(const Options &opt,
                                                     Session &s,
                                                     bool retry) {
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(opt.reconnect_timeout));
  for (;;) {
    try {
      return open_conn(opt, s.conninfo);
    } catch (const std::exception &e) {
      if (!retry || g_abort.load() || Clock::now() >= deadline) {
        s.error = std::string(retry ? "reconnect failed (timeout): "
                                    : "connect failed: ") +
                  e.what();
        return nullptr;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void run_session(const Options &opt, Session &s, StartGate &gate) {
  std::unique_ptr<pqxx::connection> conn;
  try {
    conn = connect_with_retry(opt, s, false);
  } catch (const std::exception &e) {
    s.error = std::string("connect failed: ") + e.what();
  }
  if (!conn) {
    s.failed = true;
    g_abort = true;
    gate.arrive_and_wait();
    return;
  }
  gate.arrive_and_wait();

  const size_t want = static_cast<size_t>(opt.ids);
  if (opt.after_reconnect == 0) s.ids.reserve(want);

  while (!s.done(opt) && !g_abort.load()) {
    const size_t left = opt.after_reconnect > 0
                            ? static_cast<size_t>(opt.batch)
                            : want - s.ids.size();
    const long n = static_cast<long>(std::min<size_t>(static_cast<size_t>(opt.batch), left));
    try {
      if (!conn) {
        // Previous round trip lost the connection; reconnect.
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        conn = connect_with_retry(opt, s, true);
        if (!conn) {
          s.failed = true;
          g_abort = true;
          return;
        }
        ++s.reconnects;
        s.reconnect_marks.push_back(s.ids.size());
      }
      pqxx::nontransaction tx(*conn);
      pqxx::result r = sf::exec_prepared(tx, kStmt, n);
      if (r.columns() != 1) {
        s.error = "statement returned " + std::to_string(r.columns()) +
                  " columns, expected 1";
        s.failed = true;
        g_abort = true;
        return;
      }
      if (r.empty()) {
        s.error = "statement returned no rows";
        s.failed = true;
        g_abort = true;
        return;
      }
      for (const auto &row : r) {
        const auto f = row[0];
        if (f.is_null()) {
          s.error = "statement returned NULL";
          s.failed = true;
          g_abort = true;
          return;
        }
        const char *txt = f.c_str();
        char *end = nullptr;
        errno = 0;
        const long long v = std::strtoll(txt, &end, 10);
        if (errno != 0 || end == txt || *end != '\0') {
          s.error = std::string("cannot parse id '") + txt + "' as bigint";
          s.failed = true;
          g_abort = true;
          return;
        }
        s.ids.push_back(static_cast<int64_t>(v));
      }
    } catch (const std::exception &e) {
      if (opt.reconnect && connection_lost(e, conn.get())) {
        std::fprintf(stderr, "session %zu: connection lost (%s), reconnecting\n",
                     s.index, e.what());
        conn.reset();
        continue;
      }
      s.error = connection_lost(e, conn.get())
                    ? std::string("connection lost: ") + e.what()
                    : std::string(e.what());
      s.failed = true;
      g_abort = true;
      return;
    }
  }
}

[[noreturn]] void usage(int code) {
  std::fprintf(code == 0 ? stdout : stderr,
"usage: sf_concurrency [options]\n"
"  --conn CONNSTR          libpq connection string; may be repeated\n"
"                          (default: one, \"\" = libpq defaults / PG* env)\n"
"  --per-conn N            sessions per connection string (default 4)\n"
"  --ids N                 ids per session (default 100000)\n"
"  --batch N               ids per round trip (default 1000)\n"
"  --sql TEXT              prepared statement taking $1 = count, returning one\n"
"                          bigint column (default\n"
"                          'SELECT snowflake_nextval() FROM generate_series(1,$1)')\n"
"  --out FILE              write every id received, one per line:\n"
"                          \"session_index id\", per session in received order;\n"
"                          with --reconnect a line \"session_index RECONNECT\"\n"
"                          marks where that session reconnected\n"
"  --reconnect             on a lost connection sleep 100ms and reconnect\n"
"  --reconnect-timeout S   give up reconnecting after S seconds (default 60)\n"
"  --min-id X              check every id is > X\n"
"  --after-reconnect N     with --reconnect: run until N ids arrived after the\n"
"                          first reconnect (instead of --ids), so a test can\n"
"                          crash the server whenever it likes\n"
"exit: 0 ok, 1 check failed, 2 error\n");
  std::exit(code);
}

long parse_long(const char *name, const char *s, long min) {
  return parse_long_option("sf_concurrency", name, s, min);
}

Options parse_args(int argc, char **argv) {
  Options o;
  enum { O_CONN = 1000, O_PER, O_IDS, O_BATCH, O_SQL, O_OUT, O_RECON,
         O_RTMO, O_MINID, O_AFTER, O_HELP };
  static const struct option longopts[] = {
      {"conn", required_argument, nullptr, O_CONN},
      {"per-conn", required_argument, nullptr, O_PER},
      {"ids", required_argument, nullptr, O_IDS},
      {"batch", required_argument, nullptr, O_BATCH},
      {"sql", required_argument, nullptr, O_SQL},
      {"out", required_argument, nullptr, O_OUT},
      {"reconnect", no_argument, nullptr, O_RECON},
      {"reconnect-timeout", required_argument, nullptr, O_RTMO},
      {"min-id", required_argument, nullptr, O_MINID},
      {"after-reconnect", required_argument, nullptr, O_AFTER},
      {"help", no_argument, nullptr, O_HELP},
      {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "h", longopts, nullptr)) != -1) {
    switch (c) {
      case O_CONN: o.conns.emplace_back(optarg); break;
      case O_PER: o.per_conn = parse_long("per-conn", optarg, 1); break;
      case O_IDS: o.ids = parse_long("ids", optarg, 1); break;
      case O_BATCH: o.batch = parse_long("batch", optarg, 1); break;
      case O_SQL: o.sql = optarg; break;
      case O_OUT: o.out = optarg; break;
      case O_RECON: o.reconnect = true; break;
      case O_AFTER: o.after_reconnect = parse_long("after-reconnect", optarg, 1); break;
      case O_RTMO: {
        char *end = nullptr;
        o.reconnect_timeout = std::strtod(optarg, &end);
        if (end == optarg || *end != '\0' || o.reconnect_timeout < 0) {
          std::fprintf(stderr, "sf_concurrency: bad value for --reconnect-timeout: '%s'\n", optarg);
          std::exit(2);
        }
        break;
      }
      case O_MINID: {
        char *end = nullptr;
        errno = 0;
        long long v = std::strtoll(optarg, &end, 10);
        if (errno != 0 || end == optarg || *end != '\0') {
          std::fprintf(stderr, "sf_concurrency: bad value for --min-id: '%s'\n", optarg);
          std::exit(2);
        }
        o.have_min_id = true;
        o.min_id = static_cast<int64_t>(v);
        break;
      }
      case 'h':
      case O_HELP: usage(0);
      default: usage(2);
    }
  }
  if (optind < argc) {
    std::fprintf(stderr, "sf_concurrency: unexpected argument '%s'\n", argv[optind]);
    usage(2);
  }
  if (o.conns.empty()) o.conns.emplace_back("");
  if (o.after_reconnect > 0 && !o.reconnect) {
    std::fprintf(stderr, "sf_concurrency: --after-reconnect needs --reconnect\n");
    usage(2);
  }
  return o;
}

bool write_out(const std::string &path, const std::vector<Session> &sessions) {
  FILE *f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "sf_concurrency: cannot open %s: %s\n", path.c_str(),
                 std::strerror(errno));
    return false;
  }
  for (const auto &s : sessions) {
    size_t mark = 0;
    for (size_t i = 0; i <= s.ids.size(); ++i) {
      for (; mark < s.reconnect_marks.size() && s.reconnect_marks[mark] == i; ++mark)
        std::fprintf(f, "%zu RECONNECT\n", s.index);
      if (i < s.ids.size())
        std::fprintf(f, "%zu %lld\n", s.index, static_cast<long long>(s.ids[i]));
    }
  }
  if (std::fclose(f) != 0) {
    std::fprintf(stderr, "sf_concurrency: error writing %s: %s\n", path.c_str(),
                 std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  const Options opt = parse_args(argc, argv);

  std::vector<Session> sessions;
  for (const auto &ci : opt.conns)
    for (long k = 0; k < opt.per_conn; ++k) {
      Session s;
      s.index = sessions.size();
      s.conninfo = ci;
      sessions.push_back(std::move(s));
    }

  StartGate gate(sessions.size());
  std::vector<std::thread> threads;
  threads.reserve(sessions.size());
  for (auto &s : sessions)
    threads.emplace_back(run_session, std::cref(opt), std::ref(s), std::ref(gate));

  gate.wait_all_arrived();
  const auto t0 = Clock::now();
  gate.open();
  for (auto &t : threads) t.join();
  const double elapsed =
      std::chrono::duration<double>(Clock::now() - t0).count();

  bool out_ok = true;
  if (!opt.out.empty()) out_ok = write_out(opt.out, sessions);

  // Fatal errors: exit 2.
  bool any_error = false;
  for (const auto &s : sessions)
    if (s.failed) {
      std::fprintf(stderr, "sf_concurrency: session %zu error: %s\n", s.index,
                   s.error.c_str());
      any_error = true;
    }
  if (any_error || !out_ok) return 2;

  // Checks.
  size_t total = 0;
  long long non_increasing = 0, min_id_violations = 0, reconnects = 0;
  long long incomplete = 0;
  for (const auto &s : sessions) {
    total += s.ids.size();
    reconnects += s.reconnects;
    if (opt.after_reconnect > 0 ? !s.done(opt) : s.ids.size() != static_cast<size_t>(opt.ids)) {
      ++incomplete;
      std::fprintf(stderr, "sf_concurrency: session %zu got %zu ids (%zu after reconnecting), "
                   "expected %ld\n", s.index, s.ids.size(), s.ids_after_reconnect(),
                   opt.after_reconnect > 0 ? opt.after_reconnect : opt.ids);
    }
    for (size_t i = 1; i < s.ids.size(); ++i)
      if (s.ids[i] <= s.ids[i - 1]) {
        if (non_increasing < 10)
          std::fprintf(stderr,
                       "sf_concurrency: session %zu not increasing at #%zu: %lld after %lld\n",
                       s.index, i, static_cast<long long>(s.ids[i]),
                       static_cast<long long>(s.ids[i - 1]));
        ++non_increasing;
      }
    if (opt.have_min_id)
      for (int64_t id : s.ids)
        if (id <= opt.min_id) ++min_id_violations;
  }

  std::vector<int64_t> all;
  all.reserve(total);
  for (const auto &s : sessions) all.insert(all.end(), s.ids.begin(), s.ids.end());
  std::sort(all.begin(), all.end());
  long long duplicates = 0;
  for (size_t i = 1; i < all.size(); ++i)
    if (all[i] == all[i - 1]) {
      if (duplicates < 10)
        std::fprintf(stderr, "sf_concurrency: duplicate id %lld\n",
                     static_cast<long long>(all[i]));
      ++duplicates;
    }
  const long long distinct = static_cast<long long>(total) - duplicates;

  std::printf("sessions=%zu ids=%zu distinct=%lld duplicates=%lld non_increasing=%lld "
              "elapsed_s=%.3f ids_per_s=%.0f",
              sessions.size(), total, distinct, duplicates, non_increasing,
              elapsed, elapsed > 0 ? static_cast<double>(total) / elapsed : 0.0);
  if (opt.have_min_id) std::printf(" min_id_violations=%lld", min_id_violations);
  if (opt.reconnect) std::printf(" reconnects=%lld", reconnects);
  std::printf("\n");
  std::fflush(stdout);

  bool ok = true;
  if (duplicates != 0) {
    std::fprintf(stderr, "FAIL: %lld duplicate ids\n", duplicates);
    ok = false;
  }
  if (non_increasing != 0) {
    std::fprintf(stderr, "FAIL: %lld ids not greater than the previous id of their session\n",
                 non_increasing);
    ok = false;
  }
  if (incomplete != 0) {
    std::fprintf(stderr, "FAIL: %lld sessions did not get all their ids\n", incomplete);
    ok = false;
  }
  if (min_id_violations != 0) {
    std::fprintf(stderr, "FAIL: %lld ids <= --min-id %lld\n", min_id_violations,
                 static_cast<long long>(opt.min_id));
    ok = false;
  }
  return ok ? 0 : 1;
}
