// sf_time_bench: time predicates on snowflake ids, side by side in one run.
//
// A window of one day over a table of N rows made over D days (an id primary
// key), asked four ways:
//   natural       snowflake_timestamp(id) >= a AND snowflake_timestamp(id) < b
//   operator      id <@ tstzrange(a, b)
//   hand-written  id BETWEEN snowflake_min_id(a) AND snowflake_max_id(b - 1 ms)
//   plain filter  the natural query with snowflake.time_predicates = off
//                 (the planner without the extension's help)
// for a constant day in the middle of the data, for the last day relative to
// now(), and on the same rows in a table partitioned by month (where the
// plan should touch one partition); each as SELECT count(*) (which the
// index alone can answer) and SELECT count(*), sum(amount) (every matching
// row read from the table).
//
// Then queries where the extension must leave PostgreSQL's plan as it is, or
// add to it, each with snowflake.time_predicates on and off:
//   equality join   orders JOIN marks ON snowflake_timestamp(orders.id) =
//                   marks.t (a hash join either way);
//   range join      marks JOIN orders ON snowflake_timestamp(orders.id) >=
//                   marks.t AND < marks.t + 1 s (on: an index lookup per mark);
//   time index      a day asked with the IMMUTABLE snowflake_timestamp(id,
//                   layout) that an expression index of orders_by_time covers.
//
// Warm: every variant once untimed, then --reps repetitions with the
// variants alternating (the order rotating), each repetition in one
// transaction (so that now() is the same for its variants); figures are
// medians with [min..max], ratios the medians of per-repetition ratios.  Cold: before
// each timed run the server is restarted (--restart, a shell command), so
// shared buffers are empty; the operating system's page cache is not
// dropped (it is shared with other users of the machine), so "cold" means
// cold for PostgreSQL.
//
// The tables (orders, orders_by_month) are made by test/scripts/time_bench.sh.
// Exit 0 when everything ran and every variant returned the same rows, 2 on
// any error.  No timing assertions.

#include <getopt.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <pqxx/pqxx>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cli.hpp"
#include "pqxx_compat.hpp"
#include "stats.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string conn;
  std::string restart;  // shell command that restarts the server
  long reps = 7;
  long cold_reps = 3;
  bool quick = false;
  std::vector<std::string> notes;
};

[[noreturn]] void usage(int code) {
  std::fprintf(code == 0 ? stdout : stderr,
               "usage: sf_time_bench --conn CONNSTR --restart COMMAND [options]\n"
               "  --conn CONNSTR     the server with the tables orders and orders_by_month\n"
               "  --restart COMMAND  restarts that server (for the cold runs)\n"
               "  --reps N           warm repetitions (default 7; quick 2)\n"
               "  --cold-reps N      cold repetitions (default 3; quick 1)\n"
               "  --quick            fewer repetitions\n"
               "  --note TEXT        a line printed with the figures (repeatable)\n"
               "exit: 0 ran, and every variant returned the same rows; 2 error\n");
  std::exit(code);
}

Options parse_options(int argc, char **argv) {
  Options o;
  long reps = -1, cold = -1;
  static const option longopts[] = {{"conn", required_argument, nullptr, 'c'},
                                    {"restart", required_argument, nullptr, 'r'},
                                    {"reps", required_argument, nullptr, 'n'},
                                    {"cold-reps", required_argument, nullptr, 'k'},
                                    {"quick", no_argument, nullptr, 'q'},
                                    {"note", required_argument, nullptr, 'N'},
                                    {"help", no_argument, nullptr, 'h'},
                                    {nullptr, 0, nullptr, 0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "", longopts, nullptr)) != -1) {
    switch (ch) {
    case 'c': o.conn = optarg; break;
    case 'r': o.restart = optarg; break;
    case 'n': reps = parse_long_option("sf_time_bench", "reps", optarg, 1); break;
    case 'k': cold = parse_long_option("sf_time_bench", "cold-reps", optarg, 1); break;
    case 'q': o.quick = true; break;
    case 'N': o.notes.push_back(optarg); break;
    case 'h': usage(0);
    default: usage(2);
    }
  }
  if (o.conn.empty() || o.restart.empty() || optind != argc) usage(2);
  o.reps = reps > 0 ? reps : (o.quick ? 2 : 7);
  o.cold_reps = cold > 0 ? cold : 1 + (o.quick ? 0 : 2);
  return o;
}

// The spread with a precision that suits the median's size.
std::string spread(const std::vector<double> &v) {
  if (v.empty()) return "-";
  const double m = median(v);
  return ::spread(v, m < 10 ? 2 : (m < 100 ? 1 : 0));
}

std::string fixed(double x, int prec) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", prec, x);
  return buf;
}

// A ratio: whole numbers from 10 on, two decimals below (a plan that costs
// the same reads "1.00", not "1").
std::string ratio(double x) { return fixed(x, x >= 10 ? 0 : 2); }

// ------------------------------------------------------------------ runs --

struct Variant {
  std::string name;
  std::string where;  // the condition
  bool plain;         // run with snowflake.time_predicates = off
};

struct Scenario {
  std::string title;
  std::string table;   // FROM this; with "{}", the variant's condition goes there
  std::string select;  // what the query returns: count(*), or count(*), sum(amount)
  std::vector<Variant> variants;
  bool moving;  // relative to now(): the rows change as time passes
  size_t hand = 2;     // the hand-written variant, the ratios' base (none: past the end)
};

struct Result {
  std::string plan;  // what the plan scans
  std::string answer;
  std::vector<double> warm_ms, cold_ms;
};

std::string query_of(const Scenario &s, const Variant &v) {
  const auto at = s.table.find("{}");
  if (at != std::string::npos)
    return "SELECT " + s.select + " FROM " + s.table.substr(0, at) + v.where + s.table.substr(at + 2);
  return "SELECT " + s.select + " FROM " + s.table + " WHERE " + v.where;
}

void set_rewrite(pqxx::transaction_base &tx, bool plain) {
  tx.exec(std::string("SET snowflake.time_predicates = ") + (plain ? "off" : "on"));
}

// One execution: milliseconds, and the answer to compare.
double timed(pqxx::transaction_base &tx, const std::string &sql, std::string *answer) {
  const auto t0 = Clock::now();
  pqxx::result r = tx.exec(sql);
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (r.size() != 1) throw std::runtime_error("no row from: " + sql);
  *answer = std::string(r[0][0].c_str()) + " rows";
  if (r.columns() > 1) *answer += std::string(", sum ") + (r[0][1].is_null() ? "NULL" : r[0][1].c_str());
  return ms;
}

// What the plan scans: the scan nodes that ran (EXPLAIN ANALYZE), and for a
// partitioned table how many of its partitions they are.
std::string plan_of(pqxx::transaction_base &tx, const std::string &table, const std::string &sql) {
  // A FROM clause of joins names no one table to count the partitions of.
  const long partitions =
      table.find(' ') != std::string::npos
          ? 0
          : tx.exec("SELECT count(*) FROM pg_inherits WHERE inhparent = '" + table + "'::regclass")[0][0]
                .as<long>();
  pqxx::result r = tx.exec("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) " + sql);
  std::vector<std::string> scans;
  long scanned = 0;
  for (const auto &row : r) {
    std::string line = row[0].c_str();
    const auto first = line.find_first_not_of(" ->");
    line = first == std::string::npos ? "" : line.substr(first);
    if (line.find("never executed") != std::string::npos) continue;
    // Join methods by name, scans by their node and relation.
    if (line.rfind("Hash Join", 0) == 0 || line.rfind("Merge Join", 0) == 0 ||
        line.rfind("Nested Loop", 0) == 0) {
      const std::string node = line.substr(0, line.find(" ("));
      if (std::find(scans.begin(), scans.end(), node) == scans.end()) scans.push_back(node);
      continue;
    }
    if (line.find(" Scan ") == std::string::npos || line.find(" on ") == std::string::npos)
      continue;
    ++scanned;
    std::string node = line.substr(0, line.find(" on "));
    if (std::find(scans.begin(), scans.end(), node) == scans.end()) scans.push_back(node);
  }
  std::string out;
  for (const auto &s : scans) out += (out.empty() ? "" : ", ") + s;
  if (partitions > 0)
    out += " (" + std::to_string(scanned) + " of " + std::to_string(partitions) + " partitions)";
  return out;
}

void restart(const Options &o) {
  if (std::system(o.restart.c_str()) != 0)
    throw std::runtime_error("the restart command failed: " + o.restart);
}

void run_scenario(const Options &o, const Scenario &s) {
  std::vector<Result> res(s.variants.size());
  {
    pqxx::connection c(o.conn);
    {
      pqxx::nontransaction tx(c);
      for (size_t i = 0; i < s.variants.size(); i++) {
        set_rewrite(tx, s.variants[i].plain);
        res[i].plan = plan_of(tx, s.table, query_of(s, s.variants[i]));
        timed(tx, query_of(s, s.variants[i]), &res[i].answer);  // warm-up
      }
    }
    // A window relative to now() moves as the run goes on: each repetition
    // runs in one transaction, where now() stands still, so that its
    // variants ask for the same rows.
    for (long rep = 0; rep < o.reps; rep++) {
      pqxx::work tx(c);
      std::vector<std::string> answers(s.variants.size());
      for (size_t k = 0; k < s.variants.size(); k++) {
        const size_t i = (k + rep) % s.variants.size();
        set_rewrite(tx, s.variants[i].plain);
        res[i].warm_ms.push_back(timed(tx, query_of(s, s.variants[i]), &answers[i]));
        if (!s.moving && answers[i] != res[i].answer)
          throw std::runtime_error("answers differ between runs");
      }
      tx.commit();
      for (size_t i = 1; i < answers.size(); i++)
        if (answers[i] != answers[0])
          throw std::runtime_error("variants disagree: " + s.variants[0].name + " gives " +
                                   answers[0] + ", " + s.variants[i].name + " gives " + answers[i]);
      if (s.moving) res[0].answer = answers[0];
    }
  }
  for (long rep = 0; rep < o.cold_reps; rep++)
    for (size_t k = 0; k < s.variants.size(); k++) {
      const size_t i = (k + rep) % s.variants.size();
      restart(o);
      pqxx::connection c(o.conn);
      pqxx::nontransaction tx(c);
      set_rewrite(tx, s.variants[i].plain);
      std::string answer;
      res[i].cold_ms.push_back(timed(tx, query_of(s, s.variants[i]), &answer));
      if (!s.moving && answer != res[i].answer) throw std::runtime_error("answers differ between runs");
    }

  // Ratios per repetition: each variant against the hand-written bounds
  // (variant 2) and the plain filter (the last variant) against it.
  const size_t hand = s.hand, plain = s.variants.size() - 1;
  const bool has_hand = hand < s.variants.size();
  std::printf("\n### %s: SELECT %s\n\n%s: %s\n\n", s.title.c_str(), s.select.c_str(),
              s.moving ? "answer (last repetition)" : "answer", res[0].answer.c_str());
  std::printf("| variant | plan | warm ms | cold ms | warm ÷ hand-written | time_predicates off ÷ this (warm) | time_predicates off ÷ this (cold) |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < res.size(); i++) {
    std::vector<double> vs_hand, plain_warm, plain_cold;
    for (long r = 0; r < o.reps; r++) {
      if (has_hand) vs_hand.push_back(res[i].warm_ms[r] / res[hand].warm_ms[r]);
      plain_warm.push_back(res[plain].warm_ms[r] / res[i].warm_ms[r]);
    }
    for (long r = 0; r < o.cold_reps; r++) plain_cold.push_back(res[plain].cold_ms[r] / res[i].cold_ms[r]);
    std::printf("| %s `%s` | %s | %s | %s | %s | %s | %s |\n", s.variants[i].name.c_str(),
                s.variants[i].where.c_str(), res[i].plan.c_str(), spread(res[i].warm_ms).c_str(),
                spread(res[i].cold_ms).c_str(), has_hand ? fixed(median(vs_hand), 2).c_str() : "-",
                i == plain ? "1" : ratio(median(plain_warm)).c_str(),
                i == plain ? "1" : ratio(median(plain_cold)).c_str());
  }
  std::fflush(stdout);
}

std::vector<Variant> variants_for(const std::string &a, const std::string &b_excl,
                                  const std::string &b_last_ms) {
  const std::string natural =
      "snowflake_timestamp(id) >= " + a + " AND snowflake_timestamp(id) < " + b_excl;
  return {{"natural", natural, false},
          {"operator", "id <@ tstzrange(" + a + ", " + b_excl + ")", false},
          {"hand-written",
           "id BETWEEN snowflake_min_id(" + a + ") AND snowflake_max_id(" + b_last_ms + ")", false},
          {"plain filter", natural, true}};
}

}  // namespace

int main(int argc, char **argv) {
  const Options o = parse_options(argc, argv);
  try {
    pqxx::connection c(o.conn);
    std::string day, next_day, rows, days, version, marks;
    {
      pqxx::nontransaction tx(c);
      pqxx::result r = tx.exec(
          "SELECT (SELECT count(*) FROM orders), "
          "       round(extract(epoch FROM max(snowflake_timestamp(id)) - min(snowflake_timestamp(id))) / 86400), "
          "       to_char((min(snowflake_timestamp(id)) + (max(snowflake_timestamp(id)) - min(snowflake_timestamp(id))) / 2) "
          "               AT TIME ZONE 'UTC', 'YYYY-MM-DD'), "
          "       current_setting('server_version'), "
          "       to_char((min(snowflake_timestamp(id)) + (max(snowflake_timestamp(id)) - min(snowflake_timestamp(id))) / 2) "
          "               AT TIME ZONE 'UTC' + interval '1 day', 'YYYY-MM-DD') "
          "FROM orders");
      rows = r[0][0].c_str();
      days = r[0][1].c_str();
      day = r[0][2].c_str();
      version = r[0][3].c_str();
      next_day = r[0][4].c_str();
      marks = tx.exec("SELECT count(*) FROM marks")[0][0].c_str();
    }
    std::printf("## Time predicates: a one-day window on %s rows made over %s days\n\n", rows.c_str(),
                days.c_str());
    std::printf("PostgreSQL %s; %ld warm repetitions, %ld cold (server restarted before each run; "
                "the OS page cache not dropped). Figures: median [min..max] ms, client-side "
                "wall time of the query.\n",
                version.c_str(), o.reps, o.cold_reps);
    for (const auto &n : o.notes) std::printf("%s\n", n.c_str());
    const std::string a = "'" + day + " 00:00:00+00'";
    const std::string b = "'" + next_day + " 00:00:00+00'";
    const std::string b_last = "'" + day + " 23:59:59.999+00'";
    const std::vector<Variant> last_day = {
        {"natural", "snowflake_timestamp(id) >= now() - interval '1 day'", false},
        {"operator", "id <@ tstzrange(now() - interval '1 day', NULL)", false},
        {"hand-written", "id >= snowflake_min_id(now() - interval '1 day')", false},
        {"plain filter", "snowflake_timestamp(id) >= now() - interval '1 day'", true}};
    // count(*) alone can be answered from the index (an index-only scan);
    // with sum(amount) every row is read from the table.
    for (const char *select : {"count(*)", "count(*), sum(amount)"}) {
      run_scenario(o, {"A constant day (" + day + " UTC), table orders (id primary key)", "orders",
                       select, variants_for(a, b, b_last), false});
      run_scenario(o, {"The last day, relative to now(), table orders", "orders", select, last_day,
                       true});
      run_scenario(o, {"A constant day (" + day + " UTC), table orders_by_month (partitioned by month)",
                       "orders_by_month", select, variants_for(a, b, b_last), false});
    }
    // Joins on the time, and an index on the time itself: PostgreSQL's own
    // plans, which the extension may only add to.
    const auto on_off = [](const std::string &cond) {
      return std::vector<Variant>{{"time_predicates on", cond, false},
                                  {"time_predicates off", cond, true}};
    };
    run_scenario(o, {"Equality join on the time: orders JOIN marks (" + marks + " times of ids)",
                     "orders o JOIN marks m ON {}", "count(*)",
                     on_off("snowflake_timestamp(o.id) = m.t"), false, SIZE_MAX});
    run_scenario(o, {"Range join on the time: a second after each of 3 marks",
                     "(SELECT t FROM marks ORDER BY t LIMIT 3) m JOIN orders o ON {}", "count(*)",
                     on_off("snowflake_timestamp(o.id) >= m.t AND snowflake_timestamp(o.id) < m.t + interval '1 s'"),
                     false, SIZE_MAX});
    const std::string layout = "1288834974657, 5, 5, 12";
    run_scenario(o, {"A constant day on the time's expression index (orders_by_time)", "orders_by_time",
                     "count(*), sum(amount)",
                     on_off("snowflake_timestamp(id, " + layout + ") >= " + a +
                            " AND snowflake_timestamp(id, " + layout + ") < " + b),
                     false, SIZE_MAX});
  } catch (const std::exception &e) {
    std::fprintf(stderr, "sf_time_bench: %s\n", e.what());
    return 2;
  }
  return 0;
}
