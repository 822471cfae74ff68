// sf_sweep: how the id generator scales with sessions, side by side with the
// executor's floor and core sequences, on one server.
//
// For each session count c: N values split over c sessions, every session
// running `SELECT count(<expr>) FROM generate_series(1, N/c)` at once, for
// <expr> = 1 (the floor), snowflake_nextval(), nextval('s1') (CACHE 1) and
// nextval('s100') (CACHE 100); then N rows inserted over c sessions with
// snowflake_nextval() into t_fill, and the fill of the layout's capacity read
// from the ids themselves: ids / (span of their milliseconds x
// 2^sequence_bits).  Figures are medians of --reps repetitions with the
// variants alternating.  The server needs the extension, sequences s1 and
// s100, and UNLOGGED TABLE t_fill (k integer, x bigint); test/scripts/bench.sh
// sets this up and runs the sweep on both of its servers.
//
// No timing assertions.  Exit 0 when everything ran; 1 if an inserted id
// repeated (the sweep doubles as a uniqueness check under contention);
// 2 on an error.

#include <getopt.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <pqxx/pqxx>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli.hpp"
#include "start_gate.hpp"
#include "stats.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string conn;
  std::string label = "server";
  std::vector<int> sessions = {1, 2, 4, 8, 16, 32, 64};
  long n = 8000000;
  long reps = 3;
};

[[noreturn]] void usage(int code) {
  std::fprintf(code == 0 ? stdout : stderr,
               "usage: sf_sweep --conn CONNSTR [options]\n"
               "  --conn CONNSTR     the server (extension, s1, s100 and t_fill created)\n"
               "  --label TEXT       how the output names the server (default: server)\n"
               "  --sessions LIST    session counts, space- or comma-separated\n"
               "                     (default \"1 2 4 8 16 32 64\")\n"
               "  --n N              values per measurement, split over the sessions\n"
               "                     (default 8000000)\n"
               "  --reps N           repetitions; figures are medians (default 3)\n"
               "exit: 0 ran, 1 an inserted id repeated, 2 error\n");
  std::exit(code);
}

Options parse_args(int argc, char **argv) {
  Options o;
  enum { O_CONN = 1000, O_LABEL, O_SESSIONS, O_N, O_REPS, O_HELP };
  static const struct option longopts[] = {{"conn", required_argument, nullptr, O_CONN},
                                           {"label", required_argument, nullptr, O_LABEL},
                                           {"sessions", required_argument, nullptr, O_SESSIONS},
                                           {"n", required_argument, nullptr, O_N},
                                           {"reps", required_argument, nullptr, O_REPS},
                                           {"help", no_argument, nullptr, O_HELP},
                                           {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "h", longopts, nullptr)) != -1) {
    switch (c) {
      case O_CONN: o.conn = optarg; break;
      case O_LABEL: o.label = optarg; break;
      case O_SESSIONS: {
        o.sessions.clear();
        std::string list = optarg;
        std::replace(list.begin(), list.end(), ',', ' ');
        std::istringstream in(list);
        std::string item;
        while (in >> item) o.sessions.push_back(static_cast<int>(parse_long_option("sf_sweep", "sessions", item.c_str(), 1)));
        if (o.sessions.empty()) usage(2);
        break;
      }
      case O_N: o.n = parse_long_option("sf_sweep", "n", optarg, 1); break;
      case O_REPS: o.reps = parse_long_option("sf_sweep", "reps", optarg, 1); break;
      case 'h':
      case O_HELP: usage(0);
      default: usage(2);
    }
  }
  if (o.conn.empty() || optind < argc) usage(2);
  return o;
}

long long scalar(pqxx::connection &c, const std::string &sql) {
  pqxx::nontransaction tx(c);
  return tx.exec(sql)[0][0].as<long long>();
}

// c open sessions that run one statement each at the same moment.
class Sessions {
 public:
  Sessions(const std::string &conninfo, int c) {
    for (int i = 0; i < c; ++i) conns_.push_back(std::make_unique<pqxx::connection>(conninfo));
  }
  // Runs sql_of(k) on session k, all at once; returns the wall seconds from
  // the start to the last session's end.
  template <typename SqlOf>
  double run(SqlOf &&sql_of) {
    StartGate gate(conns_.size());
    std::vector<std::string> errors(conns_.size());
    std::vector<Clock::time_point> ends(conns_.size());
    std::vector<std::thread> threads;
    for (size_t k = 0; k < conns_.size(); ++k) {
      threads.emplace_back([&, k] {
        const std::string sql = sql_of(static_cast<int>(k));
        gate.arrive_and_wait();
        try {
          pqxx::nontransaction tx(*conns_[k]);
          tx.exec(sql);
        } catch (const std::exception &e) {
          errors[k] = e.what();
        }
        ends[k] = Clock::now();
      });
    }
    gate.wait_all_arrived();
    gate.open();
    for (auto &t : threads) t.join();
    for (const auto &e : errors)
      if (!e.empty()) throw std::runtime_error(e);
    return std::chrono::duration<double>(*std::max_element(ends.begin(), ends.end()) -
                                         gate.start())
        .count();
  }

 private:
  std::vector<std::unique_ptr<pqxx::connection>> conns_;
};

int sweep(const Options &o) {
  pqxx::connection admin(o.conn);
  const long long seq_bits = scalar(admin, "SELECT sequence_bits FROM snowflake_status");
  const long long shift =
      scalar(admin, "SELECT datacenter_bits + worker_bits + sequence_bits FROM snowflake_status");
  const double cap_m = static_cast<double>(1LL << seq_bits) * 1000.0 / 1e6;
  const char *exprs[] = {"1", "snowflake_nextval()", "nextval('s1')", "nextval('s100')"};
  constexpr int kExprs = 4;

  std::printf("### %s: sequence_bits %lld (cap %.3f M ids/s); %ld values per cell, median of "
              "%ld\n\n",
              o.label.c_str(), seq_bits, cap_m, o.n, o.reps);
  std::printf("| sessions | floor `1` M/s | `snowflake_nextval()` M ids/s | ÷ 1 session | "
              "`nextval` CACHE 1 | CACHE 100 | INSERT fill |\n|---|---|---|---|---|---|---|\n");
  std::fflush(stdout);
  double one_session = 0;
  bool duplicates = false;
  for (int c : o.sessions) {
    Sessions s(o.conn, c);
    const long long per = o.n / c;
    std::vector<double> rate[kExprs], fill;
    for (long rep = 0; rep < o.reps; ++rep) {
      std::fprintf(stderr, "  sf_sweep %s: %d sessions, rep %ld/%ld\n", o.label.c_str(), c,
                   rep + 1, o.reps);
      for (int i = 0; i < kExprs; ++i) {
        const int e = (i + static_cast<int>(rep)) % kExprs;
        const std::string sql = "SELECT count(" + std::string(exprs[e]) +
                                ") FROM generate_series(1, " + std::to_string(per) + ")";
        const double sec = s.run([&](int) { return sql; });
        rate[e].push_back(static_cast<double>(per * c) / sec / 1e6);
      }
      pqxx::nontransaction(admin).exec("TRUNCATE t_fill");
      s.run([&](int k) {
        return "INSERT INTO t_fill SELECT " + std::to_string(k) +
               ", snowflake_nextval() FROM generate_series(1, " + std::to_string(per) + ")";
      });
      pqxx::nontransaction tx(admin);
      const pqxx::result res = tx.exec(
          "SELECT count(*), count(DISTINCT x), ((max(x >> " + std::to_string(shift) +
          ") - min(x >> " + std::to_string(shift) + ") + 1) << " + std::to_string(seq_bits) +
          ")::float8 FROM t_fill");
      const auto r = res[0];  // pqxx::row (6.4, 7.x) or pqxx::row_ref (8.0)
      if (r[0].as<long long>() != r[1].as<long long>()) duplicates = true;
      fill.push_back(r[0].as<double>() / r[2].as<double>());
    }
    const double sf = median(rate[1]);
    if (c == o.sessions.front()) one_session = sf;
    std::printf("| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.3f%s |\n", c, median(rate[0]), sf,
                one_session > 0 ? sf / one_session : 0.0, median(rate[2]), median(rate[3]),
                median(fill), duplicates ? " DUPLICATES" : "");
    std::fflush(stdout);
  }
  pqxx::nontransaction(admin).exec("TRUNCATE t_fill");
  std::printf(
      "\nfloor: `SELECT count(1)`, the executor without an id; ÷ 1 session: snowflake's rate over "
      "its rate at %d session(s); INSERT fill: ids / (span of their ms x 2^sequence_bits).\n\n",
      o.sessions.front());
  if (duplicates) std::fprintf(stderr, "sf_sweep: FAIL: an inserted id repeated\n");
  return duplicates ? 1 : 0;
}

}  // namespace

int main(int argc, char **argv) {
  const Options opt = parse_args(argc, argv);
  try {
    return sweep(opt);
  } catch (const std::exception &e) {
    std::fflush(stdout);
    std::fprintf(stderr, "sf_sweep: error: %s\n", e.what());
    return 2;
  }
}
