// sf_batch: client-side batching of parent/child inserts with
// snowflake_generate(n), through libpqxx (issue 13).
//
// The case of a header row whose id the detail rows need before they are
// inserted: per round, in one transaction, the client takes the ids of
// --orders headers and of --orders x --lines detail rows in two round trips
// (SELECT snowflake_generate(n)), builds every row with its ids and its
// parent's id on the client, and inserts each table in one statement
// (unnest of array parameters).  Afterwards it checks that
//   (a) every id it received is above 2^53 and above every id before it
//       (one session: strictly increasing across batches and rounds),
//   (b) the tables hold exactly the rows it built, ids included, read back
//       both as int64 and as text,
//   (c) every detail row joins its header through the foreign key,
//   (d) a row made afterwards by the column DEFAULT gets a higher id.
//
// Exit status: 0 all checks passed, 1 a check failed, 2 error.

#include <pqxx/pqxx>

#include <getopt.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cli.hpp"

namespace {

constexpr int64_t kTwoTo53 = int64_t{1} << 53;

struct Options {
  std::string conn;
  long orders = 1000;
  long lines = 5;
  long rounds = 10;
};

struct Order {
  int64_t id;
  std::string customer;
};
struct Line {
  int64_t id;
  int64_t order_id;
  long qty;
};

// A PostgreSQL array literal of integers: {1,2,3}.
template <typename T>
std::string int_array(const std::vector<T> &v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) s += ',';
    s += std::to_string(v[i]);
  }
  return s + "}";
}

// A PostgreSQL array literal of text; the strings made here hold only
// letters, digits and '-', so quoting each element is enough.
std::string text_array(const std::vector<std::string> &v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) s += ',';
    s += '"' + v[i] + '"';
  }
  return s + "}";
}

std::vector<int64_t> generate(pqxx::work &tx, long n) {
  std::vector<int64_t> ids;
  ids.reserve(static_cast<size_t>(n));
  for (const auto &row : tx.exec_params("SELECT id FROM snowflake_generate($1) AS id", n))
    ids.push_back(row[0].as<int64_t>());
  return ids;
}

int failures = 0;

void check(bool ok, const std::string &what) {
  std::printf("%s %s\n", ok ? "ok" : "FAILED", what.c_str());
  if (!ok) ++failures;
}

void usage(const char *p) {
  std::fprintf(stderr, "usage: %s --conn CONNINFO [--orders N] [--lines M] [--rounds R]\n", p);
  std::exit(2);
}

}  // namespace

int main(int argc, char **argv) {
  Options o;
  static const option longopts[] = {{"conn", required_argument, nullptr, 'c'},
                                    {"orders", required_argument, nullptr, 'o'},
                                    {"lines", required_argument, nullptr, 'l'},
                                    {"rounds", required_argument, nullptr, 'r'},
                                    {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "", longopts, nullptr)) != -1) {
    switch (c) {
      case 'c': o.conn = optarg; break;
      case 'o': o.orders = parse_long_option(argv[0], "orders", optarg, 1); break;
      case 'l': o.lines = parse_long_option(argv[0], "lines", optarg, 1); break;
      case 'r': o.rounds = parse_long_option(argv[0], "rounds", optarg, 1); break;
      default: usage(argv[0]);
    }
  }
  if (o.conn.empty() || optind != argc) usage(argv[0]);
  if (o.orders * o.lines > 1000000) {
    std::fprintf(stderr, "%s: --orders x --lines must be at most 1000000 (one snowflake_generate call)\n",
                 argv[0]);
    return 2;
  }

  try {
    pqxx::connection conn{o.conn};
    {
      pqxx::work tx{conn};
      tx.exec(
          "DROP TABLE IF EXISTS batch_lines, batch_orders;"
          "CREATE TABLE batch_orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(),"
          "  customer text NOT NULL);"
          "CREATE TABLE batch_lines (id bigint PRIMARY KEY DEFAULT snowflake_nextval(),"
          "  order_id bigint NOT NULL REFERENCES batch_orders, qty integer NOT NULL)");
      tx.commit();
    }

    std::vector<Order> orders;
    std::vector<Line> lines;
    std::vector<int64_t> received;  // every id, in the order the server gave them
    for (long r = 0; r < o.rounds; ++r) {
      pqxx::work tx{conn};
      // Two round trips for all the ids this round needs.
      const std::vector<int64_t> order_ids = generate(tx, o.orders);
      const std::vector<int64_t> line_ids = generate(tx, o.orders * o.lines);
      received.insert(received.end(), order_ids.begin(), order_ids.end());
      received.insert(received.end(), line_ids.begin(), line_ids.end());

      // Build every row on the client: the detail rows know their header's id.
      std::vector<int64_t> oid, lid, lorder;
      std::vector<long> lqty;
      std::vector<std::string> ocust;
      for (long i = 0; i < o.orders; ++i) {
        const Order h{order_ids[static_cast<size_t>(i)],
                      "c-" + std::to_string(r) + "-" + std::to_string(i)};
        orders.push_back(h);
        oid.push_back(h.id);
        ocust.push_back(h.customer);
        for (long j = 0; j < o.lines; ++j) {
          const Line d{line_ids[static_cast<size_t>(i * o.lines + j)], h.id, j + 1};
          lines.push_back(d);
          lid.push_back(d.id);
          lorder.push_back(d.order_id);
          lqty.push_back(d.qty);
        }
      }
      // One statement per table.
      tx.exec_params(
          "INSERT INTO batch_orders (id, customer) SELECT * FROM unnest($1::bigint[], $2::text[])",
          int_array(oid), text_array(ocust));
      tx.exec_params(
          "INSERT INTO batch_lines (id, order_id, qty)"
          " SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::integer[])",
          int_array(lid), int_array(lorder), int_array(lqty));
      tx.commit();
    }

    // (a) above 2^53, strictly increasing in the order received.
    bool increasing = true, big = true;
    for (size_t i = 0; i < received.size(); ++i) {
      if (received[i] <= kTwoTo53) big = false;
      if (i > 0 && received[i] <= received[i - 1]) increasing = false;
    }
    check(big, "every id is above 2^53 (" + std::to_string(received.size()) + " ids)");
    check(increasing, "ids strictly increasing across batches and rounds (so all distinct)");

    pqxx::work tx{conn};
    // (b) the headers, exactly, as int64 and as text.
    {
      const pqxx::result res =
          tx.exec("SELECT id, id::text AS id_text, customer FROM batch_orders ORDER BY id");
      bool same = res.size() == orders.size();
      for (size_t i = 0; same && i < res.size(); ++i) {
        same = res[i][0].as<int64_t>() == orders[i].id &&
               std::string(res[i][1].c_str()) == std::to_string(orders[i].id) &&
               std::string(res[i][2].c_str()) == orders[i].customer;
      }
      check(same, "batch_orders holds exactly the " + std::to_string(orders.size()) +
                      " headers built on the client, ids exact as int64 and as text");
    }
    // (b) + (c) the detail rows, exactly, each joined to its header.
    {
      std::map<int64_t, std::string> customer_of;
      for (const auto &h : orders) customer_of[h.id] = h.customer;
      const pqxx::result res = tx.exec(
          "SELECT l.id, l.order_id, l.qty, o.customer FROM batch_lines l"
          " JOIN batch_orders o ON o.id = l.order_id ORDER BY l.id");
      bool same = res.size() == lines.size();
      for (size_t i = 0; same && i < res.size(); ++i) {
        same = res[i][0].as<int64_t>() == lines[i].id &&
               res[i][1].as<int64_t>() == lines[i].order_id &&
               res[i][2].as<long>() == lines[i].qty &&
               std::string(res[i][3].c_str()) == customer_of[lines[i].order_id];
      }
      check(same, "batch_lines holds exactly the " + std::to_string(lines.size()) +
                      " detail rows, each joined to the header it was built for");
    }
    // (c) the foreign key is enforced: a detail row for a header id that was
    // generated but never inserted is refused.
    {
      const int64_t orphan = tx.exec("SELECT snowflake_nextval()")[0][0].as<int64_t>();
      tx.exec("SAVEPOINT orphan");
      bool refused = false;
      try {
        tx.exec_params("INSERT INTO batch_lines (order_id, qty) VALUES ($1, 1)", orphan);
      } catch (const pqxx::foreign_key_violation &) {
        refused = true;
      }
      tx.exec("ROLLBACK TO SAVEPOINT orphan");
      check(refused, "a detail row whose header was never inserted is refused");
    }
    // (d) the DEFAULT continues above the batches.
    {
      const int64_t after =
          tx.exec("INSERT INTO batch_orders (customer) VALUES ('after') RETURNING id")[0][0]
              .as<int64_t>();
      check(after > received.back(), "a row made by the DEFAULT afterwards gets a higher id");
    }
    tx.commit();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "sf_batch: %s\n", e.what());
    return 2;
  }
  std::printf("%s\n", failures == 0 ? "sf_batch: all checks passed" : "sf_batch: CHECKS FAILED");
  return failures == 0 ? 0 : 1;
}
