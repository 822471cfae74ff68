// The id path under real concurrency: threads stand in for backends and take
// ids through the same core templates the server uses (sim_node.hpp), with a
// fake clock that ticks, steps back and is borrowed ahead of, a reserver that
// extends the durable mark, and identity reloads -- all while the ids are
// taken.  `make tsan` runs these under ThreadSanitizer.
//
// Checked for every id: unique; increasing per thread; greater than every id
// any thread had received before this call began (the real-time order the
// node promises across backends); within the durable mark; decoding to an
// identity the node had.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "sim_node.hpp"
#include "layouts.hpp"

using snowflake_test::make_layout;
using snowflake::ClockPolicy;
using snowflake::IdParts;
using snowflake::Layout;
using snowflake::Outcome;
using snowflake_test::SimNode;

namespace {

struct Scenario {
    Layout layout;
    bool fetch_add;
    int threads;
    int ids_per_thread;
    int max_batch;        // 1: snowflake_nextval only; more: mix in batches
    bool steps_back;      // the clock steps back now and then (policy borrow)
    bool identity_reloads;
};

struct Outcomes {
    std::vector<std::vector<int64_t>> ids;  // per thread, in the order received
    uint64_t slow = 0, fast = 0, retries = 0, waits = 0;
    int64_t violations = 0;                 // real-time order or mark, counted
    int64_t borrow_limits = 0;              // calls refused at the borrow bound
};

void atomic_max(std::atomic<int64_t> *a, int64_t v) {
    int64_t cur = a->load();
    while (cur < v && !a->compare_exchange_weak(cur, v)) {
    }
}

Outcomes run(const Scenario &sc) {
    SimNode n(sc.layout, 1000);
    n.use_fetch_add = sc.fetch_add;
    n.set_identity(1, 1);
    n.now_ms = 2000;
    std::atomic<bool> done{false};
    std::atomic<int64_t> published{-1};  // the largest id any thread has received

    // The clock: ticks forward, and with steps_back jumps back 7 ms every 300
    // ticks (the borrow policy then runs ahead of it on the slow path).
    std::thread ticker([&] {
        for (int tick = 1; !done; tick++) {
            n.now_ms += (sc.steps_back && tick % 300 == 0) ? -7 : 1;
            std::this_thread::sleep_for(std::chrono::microseconds(30));
        }
    });
    // The reserver: keeps the mark 20 ms ahead, extending it at 10 ms left,
    // or at once when a taker is waiting for it.
    std::thread reserver([&] {
        while (!done) {
            const int64_t word_ms = snowflake::word_ms(n.layout, n.word.load());
            const int64_t now = n.now_ms.load();
            const int64_t base = now > word_ms ? now : word_ms;
            if (n.reservation_wanted.load() || n.reserved_ms.load() - base < 10)
                n.reserve_ahead(20);
            std::this_thread::yield();
        }
    });
    const int64_t identities[3][2] = {{1, 1}, {0, 3}, {3, 0}};
    std::thread reloader([&] {
        for (int i = 1; sc.identity_reloads && !done; i++) {
            std::this_thread::sleep_for(std::chrono::milliseconds(7));
            n.set_identity(identities[i % 3][0], identities[i % 3][1]);
        }
    });

    Outcomes out;
    out.ids.resize(sc.threads);
    std::vector<snowflake_test::TakeStats> stats(sc.threads);
    std::atomic<int64_t> violations{0};
    std::atomic<int64_t> borrow_limits{0};
    std::vector<std::thread> takers;
    for (int t = 0; t < sc.threads; t++) {
        takers.emplace_back([&, t] {
            std::mt19937 rng(t);
            std::vector<int64_t> &mine = out.ids[t];
            mine.reserve(sc.ids_per_thread + sc.max_batch);
            while (static_cast<int>(mine.size()) < sc.ids_per_thread) {
                const int64_t want = sc.max_batch > 1 && rng() % 4 == 0 ? 1 + rng() % sc.max_batch : 1;
                const int64_t before = published.load();
                const auto r = snowflake_test::take(n, want, ClockPolicy::Borrow, 50, &stats[t]);
                if (r.outcome == Outcome::BorrowLimit) {
                    // Demand beyond capacity borrowed 50 ms ahead: an
                    // application would retry; wait for the clock to move.
                    borrow_limits++;
                    for (const int64_t now = n.now_ms.load(); n.now_ms.load() == now;)
                        std::this_thread::yield();
                    continue;
                }
                if (r.outcome != Outcome::Issued) {
                    violations++;
                    return;
                }
                const int64_t last = r.first_id + r.count - 1;
                // Ids within the mark in force after the call (it only grows).
                if ((last >> n.layout.timestamp_shift()) > n.reserved_ms.load())
                    violations++;
                if (r.first_id <= before)
                    violations++;
                for (int64_t id = r.first_id; id <= last; id++)
                    mine.push_back(id);
                atomic_max(&published, last);
            }
        });
    }
    for (auto &t : takers)
        t.join();
    done = true;
    ticker.join();
    reserver.join();
    reloader.join();
    for (const auto &s : stats) {
        out.slow += s.slow;
        out.fast += s.fast;
        out.retries += s.retries;
        out.waits += s.waits;
    }
    out.violations = violations.load();
    out.borrow_limits = borrow_limits.load();
    return out;
}

void check(const Scenario &sc, const Outcomes &o) {
    EXPECT_EQ(o.violations, 0) << "an id below one received before its call began, past the "
                                  "mark, or a refusal";
    std::vector<int64_t> all;
    for (const auto &mine : o.ids) {
        ASSERT_GE(mine.size(), static_cast<size_t>(sc.ids_per_thread));
        for (size_t i = 1; i < mine.size(); i++)
            ASSERT_GT(mine[i], mine[i - 1]) << "not increasing within a thread";
        all.insert(all.end(), mine.begin(), mine.end());
    }
    std::sort(all.begin(), all.end());
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "a duplicate id";
    std::set<std::pair<int, int>> nodes;
    for (int64_t id : all) {
        IdParts p{};
        ASSERT_TRUE(snowflake::decompose(sc.layout, id, &p));
        nodes.insert({p.datacenter_id, p.worker_id});
    }
    const std::set<std::pair<int, int>> allowed = {{1, 1}, {0, 3}, {3, 0}};
    for (const auto &nd : nodes)
        EXPECT_TRUE(allowed.count(nd)) << nd.first << "/" << nd.second;
    if (sc.identity_reloads) {
        EXPECT_GT(nodes.size(), 1u) << "the reloads did not land during the run";
    }
    EXPECT_GT(o.fast, 0u);
    if (sc.steps_back) {
        EXPECT_GT(o.slow, 0u) << "the clock steps never reached the slow path";
    }
}

}  // namespace

// 16 ids per millisecond: the threads run out most milliseconds and race to
// move the word on; the clock steps back and borrowing takes the slow path.
TEST(IdPathThreads, FetchAddNarrowSequenceWithClockStepsAndReloads) {
    const Scenario sc{make_layout(2, 2, 4), true, 8, 6000, 1, true, true};
    const Outcomes o = run(sc);
    check(sc, o);
}

TEST(IdPathThreads, CompareAndSwapNarrowSequenceWithBatches) {
    const Scenario sc{make_layout(2, 2, 4), false, 8, 6000, 8, true, true};
    const Outcomes o = run(sc);
    check(sc, o);
}

TEST(IdPathThreads, FetchAddDefaultLayoutManyIdsPerMillisecond) {
    const Scenario sc{make_layout(5, 5, 12), true, 8, 40000, 1, false, false};
    const Outcomes o = run(sc);
    check(sc, o);
}

TEST(IdPathThreads, FetchAddWithBatchesMixedIn) {
    const Scenario sc{make_layout(2, 2, 6), true, 6, 8000, 16, true, false};
    const Outcomes o = run(sc);
    check(sc, o);
}
