// Unit tests of the id path (src/core/id_path.*): the fast path's decisions,
// the fetch-and-add and compare-and-swap attempts, and the slow path's loop,
// one thread at a time.  test_id_path_threads.cpp runs them concurrently.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "generator.hpp"
#include "id_path.hpp"
#include "id_word.hpp"
#include "layout.hpp"
#include "sim_node.hpp"

using snowflake::Attempt;
using snowflake::ClockPolicy;
using snowflake::FastStep;
using snowflake::FastView;
using snowflake::IdParts;
using snowflake::Layout;
using snowflake::Outcome;
using snowflake_test::SimNode;
using snowflake_test::take;

namespace {

constexpr int64_t kT = 5000000;

const Layout kL;
const int64_t kNode = kL.node_bits(17, 25);

FastView view(int64_t now, int64_t node = kNode, int64_t reserved = kT + 1000) {
    return FastView{now, node, reserved};
}

// try_fast with a fixed view: the clock and the identity as `v` has them.
template <typename Word>
snowflake::AttemptResult attempt(Word &w, const FastView &v, int64_t want, int64_t first_seq,
                                 bool use_fetch_add) {
    return snowflake::try_fast(
        w, [&v] { return v.now_ms; },
        [&v] { return snowflake::NodeView{v.node, v.reserved_ms}; }, kL, want, first_seq,
        use_fetch_add);
}

IdParts parts(const Layout &l, int64_t id) {
    IdParts p{};
    EXPECT_TRUE(snowflake::decompose(l, id, &p)) << id;
    return p;
}

// A plain word, with an optional interference: a change another process makes
// between this process's load and its add or swap.
struct PlainWord {
    uint64_t v;
    uint64_t interfere_add = 0;   // added to v just before the next RMW
    int cas_failures = 0;         // fail this many swaps, bumping v by one each
    uint64_t load() { return v; }
    uint64_t fetch_add(uint64_t n) {
        v += interfere_add;
        interfere_add = 0;
        const uint64_t old = v;
        v += n;
        return old;
    }
    bool cas(uint64_t *expected, uint64_t desired) {
        v += interfere_add;
        interfere_add = 0;
        if (cas_failures > 0) {
            cas_failures--;
            v += 1;
        }
        if (v != *expected) {
            *expected = v;
            return false;
        }
        v = desired;
        return true;
    }
};

}  // namespace

// ---- decide_fast -----------------------------------------------------------

TEST(FastPath, TakesTheNextSequenceWhenTheWordsMillisecondIsNow) {
    const uint64_t w = snowflake::word_pack(kL, kT, kNode, 7);
    const auto d = snowflake::decide_fast(w, view(kT), kL, 1, 0);
    ASSERT_EQ(d.step, FastStep::Take);
    EXPECT_EQ(d.first_id, kL.compose(kT, kNode, 7));
    EXPECT_EQ(d.count, 1);
    EXPECT_EQ(d.desired, w + 1);
}

TEST(FastPath, ABatchTakesWhatIsLeftOfTheMillisecondAtMost) {
    const uint64_t w = snowflake::word_pack(kL, kT, kNode, 4090);
    const auto d = snowflake::decide_fast(w, view(kT), kL, 100, 0);
    ASSERT_EQ(d.step, FastStep::Take);
    EXPECT_EQ(d.count, 6);
    EXPECT_EQ(d.first_id, kL.compose(kT, kNode, 4090));
    EXPECT_EQ(snowflake::word_counter(kL, d.desired), 4096u) << "used up after the batch";
}

TEST(FastPath, WaitsForTheNextMillisecondWhenThisOneIsUsedUp) {
    for (uint64_t c : {uint64_t{4096}, uint64_t{4097}, uint64_t{8191}}) {
        const auto d = snowflake::decide_fast(snowflake::word_pack(kL, kT, kNode, c), view(kT), kL,
                                              1, 0);
        ASSERT_EQ(d.step, FastStep::WaitNextMs);
        EXPECT_EQ(d.wait_for_ms, kT + 1);
    }
}

TEST(FastPath, AnotherNodesMillisecondIsUsedUpForThisOne) {
    // The identity changed within the millisecond: ids of the new node there
    // could sort below ids the old one issued.
    const int64_t old_node = kL.node_bits(31, 31);
    const auto d = snowflake::decide_fast(snowflake::word_pack(kL, kT, old_node, 3), view(kT), kL,
                                          1, 0);
    ASSERT_EQ(d.step, FastStep::WaitNextMs);
    EXPECT_EQ(d.wait_for_ms, kT + 1);
}

TEST(FastPath, MovesTheWordToTheClocksMillisecondWithinTheMark) {
    const uint64_t w = snowflake::word_pack(kL, kT - 3, kNode, 100);
    const auto d = snowflake::decide_fast(w, view(kT), kL, 1, 0);
    ASSERT_EQ(d.step, FastStep::Move);
    EXPECT_EQ(d.first_id, kL.compose(kT, kNode, 0));
    EXPECT_EQ(d.desired, snowflake::word_pack(kL, kT, kNode, 1));
    EXPECT_GT(d.desired, w);
}

TEST(FastPath, AMoveStartsAtTheRandomOffsetAndTakesABatchFromIt) {
    const uint64_t w = snowflake::word_used_up(kL, kT - 1);
    const auto d = snowflake::decide_fast(w, view(kT), kL, 5000, 2000);
    ASSERT_EQ(d.step, FastStep::Move);
    EXPECT_EQ(d.first_id, kL.compose(kT, kNode, 2000));
    EXPECT_EQ(d.count, 2096);
    EXPECT_EQ(d.desired, snowflake::word_pack(kL, kT, kNode, 4096));
}

TEST(FastPath, LeavesEverythingElseToTheSlowPath) {
    const uint64_t w = snowflake::word_pack(kL, kT, kNode, 7);
    // No identity yet; the clock before the epoch.
    EXPECT_EQ(snowflake::decide_fast(w, view(kT, -1), kL, 1, 0).step, FastStep::Slow);
    EXPECT_EQ(snowflake::decide_fast(w, view(-5), kL, 1, 0).step, FastStep::Slow);
    // The clock behind the word: a step back, or borrowing.
    EXPECT_EQ(snowflake::decide_fast(w, view(kT - 1), kL, 1, 0).step, FastStep::Slow);
    // Past the durable mark: a reservation is needed.
    EXPECT_EQ(snowflake::decide_fast(w, view(kT + 1, kNode, kT), kL, 1, 0).step, FastStep::Slow);
    EXPECT_EQ(snowflake::decide_fast(w, view(kT + 1, kNode, -1), kL, 1, 0).step, FastStep::Slow);
    // Past the lifetime.
    const uint64_t last = snowflake::word_pack(kL, kL.max_timestamp(), kNode, 4096);
    EXPECT_EQ(snowflake::decide_fast(last, view(kL.max_timestamp() + 1, kNode, INT64_MAX), kL, 1, 0)
                  .step,
              FastStep::Slow);
}

TEST(FastPath, TheMarkItselfIsUsable) {
    const auto d = snowflake::decide_fast(snowflake::word_used_up(kL, kT - 1),
                                          view(kT, kNode, kT), kL, 1, 0);
    EXPECT_EQ(d.step, FastStep::Move);
}

// ---- try_fast ----------------------------------------------------------------

TEST(FastAttempt, FetchAddTakesEveryIdOfTheMillisecondThenWaits) {
    PlainWord w{snowflake::word_pack(kL, kT, kNode, 0)};
    const FastView v = view(kT);
    for (int i = 0; i < 4096; i++) {
        const auto a = attempt(w, v, 1, 0, true);
        ASSERT_EQ(a.outcome, Attempt::Issued);
        ASSERT_EQ(a.first_id, kL.compose(kT, kNode, i));
    }
    const auto a = attempt(w, v, 1, 0, true);
    ASSERT_EQ(a.outcome, Attempt::WaitNextMs);
    EXPECT_EQ(a.wait_for_ms, kT + 1);
}

TEST(FastAttempt, AnAddThatFindsTheMillisecondUsedUpTakesNothing) {
    // Loaded with one id left; another process takes it before the add.
    PlainWord w{snowflake::word_pack(kL, kT, kNode, 4095)};
    w.interfere_add = 1;
    const auto a = attempt(w, view(kT), 1, 0, true);
    EXPECT_EQ(a.outcome, Attempt::Retry);
    EXPECT_EQ(snowflake::word_counter(kL, w.v), 4097u) << "the failed add is left in the counter";
    EXPECT_EQ(snowflake::word_ms(kL, w.v), kT);
    EXPECT_EQ(snowflake::word_node(kL, w.v), kNode);
    // Seen used up, the next attempt waits instead of adding again.
    EXPECT_EQ(attempt(w, view(kT), 1, 0, true).outcome,
              Attempt::WaitNextMs);
    EXPECT_EQ(snowflake::word_counter(kL, w.v), 4097u);
}

TEST(FastAttempt, AnAddLandsInWhateverMillisecondTheWordHoldsNow) {
    // Loaded at kT; meanwhile another process moved the word to kT + 1 and
    // took 5 ids there.  The add takes the 6th of kT + 1.
    PlainWord w{snowflake::word_pack(kL, kT, kNode, 9)};
    w.interfere_add = snowflake::word_pack(kL, kT + 1, kNode, 5) - w.v;
    const auto a = attempt(w, view(kT), 1, 0, true);
    ASSERT_EQ(a.outcome, Attempt::Issued);
    EXPECT_EQ(a.first_id, kL.compose(kT + 1, kNode, 5));
}

TEST(FastAttempt, CompareAndSwapModeAndBatchesRetryWhenTheWordMoved) {
    PlainWord w{snowflake::word_pack(kL, kT, kNode, 3)};
    w.cas_failures = 1;
    auto a = attempt(w, view(kT), 1, 0, false);
    EXPECT_EQ(a.outcome, Attempt::Retry);
    a = attempt(w, view(kT), 1, 0, false);
    ASSERT_EQ(a.outcome, Attempt::Issued);
    EXPECT_EQ(a.first_id, kL.compose(kT, kNode, 4));
    // A batch never uses fetch-and-add, even when allowed.
    a = attempt(w, view(kT), 10, 0, true);
    ASSERT_EQ(a.outcome, Attempt::Issued);
    EXPECT_EQ(a.first_id, kL.compose(kT, kNode, 5));
    EXPECT_EQ(a.count, 10);
    EXPECT_EQ(w.v, snowflake::word_pack(kL, kT, kNode, 15));
}

TEST(FastAttempt, ReadsTheWordThenTheClockThenTheIdentity) {
    PlainWord w{snowflake::word_pack(kL, kT, kNode, 0)};
    std::string order;
    struct Spy {
        PlainWord *w;
        std::string *order;
        uint64_t load() {
            *order += "word ";
            return w->load();
        }
        uint64_t fetch_add(uint64_t n) { return w->fetch_add(n); }
        bool cas(uint64_t *e, uint64_t d) { return w->cas(e, d); }
    } spy{&w, &order};
    snowflake::try_fast(
        spy,
        [&] {
            order += "clock ";
            return kT;
        },
        [&] {
            order += "identity";
            return snowflake::NodeView{kNode, kT + 1000};
        },
        kL, 1, 0, true);
    EXPECT_EQ(order, "word clock identity");
}

// ---- an identity change against attempts in flight ---------------------------
//
// A process loads the word and reads the identity, is descheduled, and the
// node identity changes (a reload); when it resumes, the add or swap it
// prepared must not issue an id of the old identity.

const int64_t kOtherNode = kL.node_bits(17, 26);

TEST(IdentityChange, RetiresTheWordsMillisecondForEveryNodeAndAlwaysGrowsIt) {
    for (int64_t adders : {int64_t{0}, int64_t{1}, int64_t{100}, kL.max_sequence()}) {
        for (uint64_t counter : {0u, 1u, 4095u, 4096u, 5000u, 8190u, 8191u}) {
            for (int64_t node : {int64_t{0}, kNode, kL.node_bits(31, 31)}) {
                const uint64_t w = snowflake::word_pack(kL, kT, node, counter);
                const uint64_t r = snowflake::word_after_identity_change(kL, w, adders);
                EXPECT_GT(r, w) << "every change makes the word larger: counter " << counter
                                << " node " << node << " adders " << adders;
                EXPECT_LE(snowflake::word_ms(kL, r), kT + 1) << "at most one millisecond on";
                EXPECT_GT(snowflake::word_counter(kL, r), static_cast<uint64_t>(kL.max_sequence()))
                    << "used up";
                // The adds still in flight land without carrying out of the
                // counter (at most `adders` of them).
                EXPECT_LE(snowflake::word_counter(kL, r) + static_cast<uint64_t>(adders), 8191u);
                int64_t id;
                EXPECT_FALSE(snowflake::word_take(kL, r, &id)) << "an add on it takes nothing";
                for (int64_t n : {int64_t{0}, kNode, kOtherNode})
                    EXPECT_NE(snowflake::decide_fast(r, view(snowflake::word_ms(kL, r), n), kL, 1, 0)
                                  .step,
                              FastStep::Take);
            }
        }
    }
}

TEST(IdentityChange, AWordRetiredAlreadyGetsItsCounterBumpedWhileTheAddsInFlightFit) {
    const int64_t all_ones = kL.node_bits(31, 31);
    const uint64_t w = snowflake::word_pack(kL, kT, all_ones, 4096);
    EXPECT_EQ(snowflake::word_after_identity_change(kL, w, 100), w + 1);
    EXPECT_EQ(snowflake::word_after_identity_change(kL, w, 0), w + 1) << "compare-and-swap mode";
    // No room left for the adds in flight: the next millisecond, used up.
    const uint64_t full = snowflake::word_pack(kL, kT, all_ones, 8191 - 100);
    EXPECT_EQ(snowflake::word_after_identity_change(kL, full, 100),
              snowflake::word_pack(kL, kT + 1, all_ones, 4096));
    EXPECT_EQ(snowflake::word_after_identity_change(kL, full - 1, 100), full);
}

TEST(IdentityChange, AFenceMovesTheWordToItsMillisecondUsedUp) {
    const uint64_t w = snowflake::word_pack(kL, kT, kNode, 7);
    const uint64_t f = snowflake::word_after_identity_change(kL, w, 100, kT + 500);
    EXPECT_EQ(snowflake::word_ms(kL, f), kT + 500);
    EXPECT_GT(snowflake::word_counter(kL, f), static_cast<uint64_t>(kL.max_sequence()));
    // A fence at or before the word's millisecond is a plain retirement.
    EXPECT_EQ(snowflake::word_after_identity_change(kL, w, 100, kT),
              snowflake::word_after_identity_change(kL, w, 100));
    EXPECT_EQ(snowflake::word_after_identity_change(kL, w, 100, kT - 20),
              snowflake::word_after_identity_change(kL, w, 100));
}

TEST(IdentityChange, TheLifetimesLastMillisecondStaysUsedUp) {
    Layout narrow;
    narrow.sequence_bits = 1;
    const int64_t all = narrow.node_bits(31, 31);
    const int64_t last = narrow.max_timestamp();
    const uint64_t w = snowflake::word_pack(narrow, last, all, 2);
    EXPECT_EQ(snowflake::word_after_identity_change(narrow, w, 0), w + 1);
    // The largest word there is: nothing can be taken from it, nothing
    // prepared on it can succeed (a move needs a later millisecond).
    EXPECT_EQ(snowflake::word_after_identity_change(narrow, w + 1, 0), w + 1);
    EXPECT_EQ(snowflake::word_after_identity_change(narrow, w + 1, 0, last + 5), w + 1);
    EXPECT_EQ(snowflake::decide_fast(w + 1, FastView{last, all, last}, narrow, 1, 0).step,
              FastStep::WaitNextMs);
    EXPECT_EQ(snowflake::decide_fast(w + 1, FastView{last + 1, all, last + 1}, narrow, 1, 0).step,
              FastStep::Slow);
}

// The identity read, then the change lands before the attempt's add or swap.
template <typename Word>
snowflake::AttemptResult attempt_across_change(Word &w, int64_t now) {
    return snowflake::try_fast(
        w, [now] { return now; },
        [&w] {
            const snowflake::NodeView old{kNode, kT + 1000};  // read before the change
            w.v = snowflake::word_after_identity_change(kL, w.v, 100);
            return old;
        },
        kL, 1, 0, true);
}

TEST(IdentityChange, AnAddPreparedUnderTheOldIdentityTakesNothing) {
    PlainWord w{snowflake::word_pack(kL, kT, kNode, 7)};
    const auto a = attempt_across_change(w, kT);
    EXPECT_EQ(a.outcome, Attempt::Retry) << "issued " << a.first_id;
}

TEST(IdentityChange, ASwapPreparedUnderTheOldIdentityFails) {
    // The clock has moved on: the attempt would move the word to the new
    // millisecond under the node it read.
    PlainWord w{snowflake::word_pack(kL, kT, kNode, 7)};
    const auto a = attempt_across_change(w, kT + 276);
    EXPECT_EQ(a.outcome, Attempt::Retry) << "issued " << a.first_id;
    // Retried with the new identity, it issues under it.
    const auto b = attempt(w, view(kT + 276, kOtherNode), 1, 0, true);
    ASSERT_EQ(b.outcome, Attempt::Issued);
    EXPECT_EQ(b.first_id, kL.compose(kT + 276, kOtherNode, 0));
}

// D1: the all-ones identity (its node bits are those a retired word carries)
// with its millisecond used up.  A process loaded that word, read the clock
// one millisecond later and the identity (still all ones), and prepared a
// swap to the new millisecond; then the identity changed.  The swap must
// fail: the retired word has to differ from, and exceed, the old one.
TEST(IdentityChange, AllOnesIdentityWithAUsedUpMillisecondStillRetiresTheWord) {
    const int64_t all_ones = kL.node_bits(31, 31);
    for (bool fetch_add : {true, false}) {
        PlainWord w{snowflake::word_pack(kL, kT, all_ones, 4096)};  // kT used up by 31/31
        const auto a = snowflake::try_fast(
            w, [] { return kT + 1; },
            [&w, all_ones, fetch_add] {
                const snowflake::NodeView old{all_ones, kT + 1000};  // read before the change
                w.v = snowflake::word_after_identity_change(kL, w.v, fetch_add ? 100 : 0);
                return old;
            },
            kL, 1, 0, fetch_add);
        EXPECT_EQ(a.outcome, Attempt::Retry) << "issued an id of worker 31 after the change: "
                                             << a.first_id;
    }
}

// The same through two changes in one millisecond (31/31 to 30, then to
// 29): the second change finds the word already retired, and must still
// make a swap prepared under 30 fail.
TEST(IdentityChange, ASecondChangeInTheSameMillisecondStillRetiresTheWord) {
    SimNode n(kL, -1);
    n.use_fetch_add = false;
    n.set_identity(31, 31);
    n.auto_reserve_ms = 1000;
    n.now_ms = kT;
    ASSERT_EQ(take(n, 1, ClockPolicy::Borrow, 1000).outcome, Outcome::Issued);
    const uint64_t first = n.set_identity(31, 30);
    // A process loads the retired word, reads the clock a millisecond on and
    // the identity 31/30, and prepares its swap; the node moves to 31/29.
    snowflake_test::AtomicWord w{&n.word};
    const auto a = snowflake::try_fast(
        w, [] { return kT + 1; },
        [&n] {
            const snowflake::NodeView old{n.node.load(), n.reserved_ms.load()};
            n.set_identity(31, 29);
            return old;
        },
        kL, 1, 0, false);
    EXPECT_EQ(a.outcome, Attempt::Retry) << "issued an id of worker 30: " << a.first_id;
    EXPECT_GT(n.word.load(), first);
}

TEST(IdentityChange, OnTheWholePathNoIdOfTheOldNodeFollowsTheChange) {
    SimNode n(kL, -1);
    n.set_identity(17, 25);
    n.auto_reserve_ms = 1000;
    n.now_ms = kT;
    const auto a = take(n, 1, ClockPolicy::Borrow, 1000);
    ASSERT_EQ(a.outcome, Outcome::Issued);
    n.set_identity(17, 26);
    // Same millisecond: the old node's millisecond is used up for the new
    // one (its ids there could sort below ids already issued).
    std::thread ticker([&n] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        n.now_ms += 1;
    });
    const auto b = take(n, 1, ClockPolicy::Borrow, 1000);
    ticker.join();
    ASSERT_EQ(b.outcome, Outcome::Issued);
    EXPECT_GT(b.first_id, a.first_id);
    EXPECT_EQ(parts(kL, b.first_id).worker_id, 26);
    EXPECT_EQ(parts(kL, b.first_id).timestamp, kT + 1);
}

// ---- take_locked and the whole path ------------------------------------------

TEST(SlowPath, DecidesAgainWhenTheFastPathMovedTheWordUnderTheLock) {
    snowflake::GeneratorState s;
    snowflake::start_after_mark(&s, kT - 10);
    PlainWord w{snowflake::word_of(s, kL)};
    w.cas_failures = 1;  // one id taken lock-free between load and swap
    snowflake::Request req{};
    req.datacenter_id = 17;
    req.worker_id = 25;
    req.policy = ClockPolicy::Borrow;
    req.max_backward_ms = 100;
    req.count = 1;
    // The clock is behind the mark: the slow path borrows.
    const auto r = snowflake::take_locked(w, [] { return kT - 20; }, &s, kL, kT + 1000, req);
    ASSERT_EQ(r.outcome, Outcome::Issued);
    EXPECT_EQ(parts(kL, r.first_id).timestamp, kT - 9);
    EXPECT_EQ(s.backward_events, 1u) << "one episode, though decided twice";
    EXPECT_EQ(w.v, snowflake::word_pack(kL, kT - 9, kNode, 1));
}

TEST(SlowPath, StartsWithAReservationAndThenLeavesIdsToTheFastPath) {
    SimNode n(kL, kT - 5);
    n.set_identity(17, 25);
    n.now_ms = kT;
    n.auto_reserve_ms = 1000;
    snowflake_test::TakeStats st;
    int64_t prev = -1;
    for (int i = 0; i < 10000; i++) {
        if (i % 2500 == 2499)
            n.now_ms += 1;
        const auto r = take(n, 1, ClockPolicy::Error, 0, &st);
        ASSERT_EQ(r.outcome, Outcome::Issued);
        ASSERT_GT(r.first_id, prev);
        prev = r.first_id;
    }
    EXPECT_EQ(st.slow, 0u) << "the first id took the slow path only for the reservation";
    EXPECT_EQ(st.fast, 10000u);
    EXPECT_EQ(st.waits, 0u);
    EXPECT_EQ(st.retries, 0u);
}

TEST(SlowPath, ANewIdentityWithSmallerNodeBitsNeverUndercutsTheOldOnesIds) {
    SimNode n(kL, -1);
    n.set_identity(31, 31);
    n.now_ms = kT;
    n.auto_reserve_ms = 1000;
    const auto a = take(n, 1, ClockPolicy::Error, 0);
    ASSERT_EQ(a.outcome, Outcome::Issued);
    n.set_identity(0, 1);
    std::thread ticker([&n] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        n.now_ms += 1;
    });
    const auto b = take(n, 1, ClockPolicy::Error, 0);  // waits for the next ms
    ticker.join();
    ASSERT_EQ(b.outcome, Outcome::Issued);
    EXPECT_GT(b.first_id, a.first_id);
    EXPECT_EQ(parts(kL, b.first_id).timestamp, kT + 1);
    EXPECT_EQ(parts(kL, b.first_id).worker_id, 1);
}

TEST(SlowPath, AnEpisodeEndedByTheFastPathLetsTheNextStepCountAgain) {
    SimNode n(kL, -1);
    n.set_identity(17, 25);
    n.auto_reserve_ms = 1000;
    n.now_ms = kT;
    ASSERT_EQ(take(n, 1, ClockPolicy::Borrow, 1000).outcome, Outcome::Issued);
    n.now_ms = kT - 30;  // step back: the slow path borrows
    ASSERT_EQ(take(n, 1, ClockPolicy::Borrow, 1000).outcome, Outcome::Issued);
    EXPECT_EQ(n.gen.backward_events, 1u);
    EXPECT_TRUE(n.gen.behind);
    n.now_ms = kT + 50;  // caught up: the fast path moves the word on
    snowflake_test::TakeStats st;
    ASSERT_EQ(take(n, 1, ClockPolicy::Borrow, 1000, &st).outcome, Outcome::Issued);
    EXPECT_EQ(st.fast, 1u);
    n.now_ms = kT - 100;  // a second step back, of 150 ms from the highest clock
    ASSERT_EQ(take(n, 1, ClockPolicy::Borrow, 1000).outcome, Outcome::Issued);
    EXPECT_EQ(n.gen.backward_events, 2u);
    EXPECT_EQ(n.gen.max_backward_ms, 150) << "measured from the fast path's millisecond";
}

TEST(SlowPath, AFreshNodeWaitingForItsFirstReservationReportsNoStepBack) {
    // No state file: the word starts at millisecond 0.  Until the reserver
    // has written the first mark, every attempt goes to the slow path and
    // loads that word again; it is no reading of the clock stepping back
    // from the real one the previous attempt saw.
    SimNode n(kL, -1);
    n.set_identity(17, 25);
    n.now_ms = kT;
    snowflake::Request req{};
    req.policy = ClockPolicy::Borrow;
    req.max_backward_ms = 10000;
    req.count = 1;
    req.datacenter_id = 17;
    req.worker_id = 25;
    snowflake_test::AtomicWord word{&n.word};
    for (int i = 0; i < 3; i++) {
        const auto r = snowflake::take_locked(word, [&n] { return n.now_ms.load(); }, &n.gen, kL,
                                              n.reserved_ms.load(), req);
        ASSERT_EQ(r.outcome, Outcome::NeedReservation);
        n.now_ms += 1;
    }
    n.reserve_ahead(1000);
    const auto r = snowflake::take_locked(word, [&n] { return n.now_ms.load(); }, &n.gen, kL,
                                          n.reserved_ms.load(), req);
    ASSERT_EQ(r.outcome, Outcome::Issued);
    EXPECT_EQ(n.gen.max_backward_ms, 0);
    EXPECT_EQ(n.gen.backward_events, 0u);
}

TEST(SlowPath, ErrorPolicyRefusesAStepBackWithoutTouchingTheWord) {
    SimNode n(kL, -1);
    n.set_identity(17, 25);
    n.auto_reserve_ms = 1000;
    n.now_ms = kT;
    ASSERT_EQ(take(n, 1, ClockPolicy::Error, 0).outcome, Outcome::Issued);
    const uint64_t before = n.word.load();
    n.now_ms = kT - 12;
    EXPECT_EQ(take(n, 1, ClockPolicy::Error, 0).outcome, Outcome::ClockBehindError);
    EXPECT_EQ(n.word.load(), before);
}

TEST(SlowPath, NoIdentityNeverIssues) {
    SimNode n(kL, -1);
    n.now_ms = kT;
    n.auto_reserve_ms = 1000;
    EXPECT_NE(take(n, 1, ClockPolicy::Borrow, 100).outcome, Outcome::Issued);
}

TEST(SlowPath, IdsNeverPassTheMarkWhileTheReserverIsAway) {
    SimNode n(kL, -1);
    n.set_identity(17, 25);
    n.now_ms = kT;
    n.reserved_ms = kT + 2;
    constexpr int kIds = 4096 * 5;  // more than the 3 ms below the mark hold
    std::vector<int64_t> ids(kIds);
    std::atomic<int> taken{0};
    std::atomic<bool> stop{false};
    std::thread clock([&] {
        while (!stop && taken.load() == 0)
            std::this_thread::yield();
        while (!stop) {
            n.now_ms += 1;
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
    });
    std::thread taker([&] {
        for (int i = 0; i < kIds; i++) {
            ids[i] = take(n, 1, ClockPolicy::Error, 0).first_id;
            taken.store(i + 1);
        }
    });
    // The taker fills the milliseconds up to the mark, then waits for a
    // reservation that does not come until the clock is well past it.
    while (!n.reservation_wanted.load() || n.now_ms.load() < kT + 50)
        std::this_thread::yield();
    const int before = taken.load();
    EXPECT_GT(before, 0);
    EXPECT_LT(before, kIds);
    int past_mark = 0;
    for (int i = 0; i < before; i++)
        past_mark += parts(kL, ids[i]).timestamp > kT + 2;
    EXPECT_EQ(past_mark, 0) << "ids past the mark";
    n.reserve_ahead(1000);
    taker.join();
    stop = true;
    clock.join();
    for (int i = 1; i < kIds; i++)
        ASSERT_GT(ids[i], ids[i - 1]);
    EXPECT_GE(parts(kL, ids[kIds - 1]).timestamp, kT + 50) << "the rest came after the reservation";
}
