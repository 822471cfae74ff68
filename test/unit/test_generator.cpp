// Unit tests of the id state machine (src/core/generator.*).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "fake_clock.hpp"
#include "generator.hpp"
#include "layout.hpp"
#include "layouts.hpp"

using snowflake_test::make_layout;
using snowflake::ClockPolicy;
using snowflake::GeneratorState;
using snowflake::IdParts;
using snowflake::Layout;
using snowflake::Outcome;
using snowflake::Result;
using snowflake_test::drive_next_ids;
using snowflake_test::FakeClock;
using snowflake_test::make_request;
using snowflake_test::NodeConfig;

namespace {

constexpr int64_t kT = 5000000;  // an arbitrary "now" (timestamp field)

IdParts parts(const Layout &l, int64_t id) {
    IdParts p{};
    EXPECT_TRUE(snowflake::decompose(l, id, &p)) << id;
    return p;
}

// A state that has never issued anything, with the durable mark far ahead so
// that NeedReservation does not get in the way of the test.
GeneratorState fresh_state(int64_t reserved_ms = INT64_MAX / 2) {
    GeneratorState s;
    snowflake::start_after_mark(&s, -1);
    s.reserved_ms = reserved_ms;
    return s;
}

// Only the fields that decide which ids come next.
void expect_same_id_state(const GeneratorState &a, const GeneratorState &b) {
    EXPECT_EQ(a.last_ms, b.last_ms);
    EXPECT_EQ(a.last_seq, b.last_seq);
    EXPECT_EQ(a.last_node, b.last_node);
    EXPECT_EQ(a.reserved_ms, b.reserved_ms);
}

void expect_same_state(const GeneratorState &a, const GeneratorState &b) {
    expect_same_id_state(a, b);
    EXPECT_EQ(a.behind, b.behind);
    EXPECT_EQ(a.backward_events, b.backward_events);
    EXPECT_EQ(a.max_backward_ms, b.max_backward_ms);
}

Result issue(GeneratorState *s, const Layout &l, const FakeClock &c, const NodeConfig &n,
             int64_t count = 1, uint32_t random = 0) {
    return snowflake::next_ids(s, l, make_request(c, n, count, random));
}

}  // namespace

TEST(Generator, ClockPolicyNames) {
    EXPECT_STREQ(snowflake::clock_policy_name(ClockPolicy::Error), "error");
    EXPECT_STREQ(snowflake::clock_policy_name(ClockPolicy::Wait), "wait");
    EXPECT_STREQ(snowflake::clock_policy_name(ClockPolicy::Borrow), "borrow");
}

TEST(Generator, FreshStateNeedsAReservationBeforeTheFirstIdAndIsNotChangedByIt) {
    const Layout l;
    GeneratorState s;
    FakeClock c(kT);
    NodeConfig n;
    const GeneratorState before = s;
    const Result r = issue(&s, l, c, n);
    ASSERT_EQ(r.outcome, Outcome::NeedReservation);
    EXPECT_EQ(r.wait_for_ms, kT);
    expect_same_state(s, before);
}

TEST(Generator, FirstIdCarriesClockNodeAndSequenceZero) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    n.datacenter_id = 17;
    n.worker_id = 25;
    const Result r = issue(&s, l, c, n);
    ASSERT_EQ(r.outcome, Outcome::Issued);
    EXPECT_EQ(r.count, 1);
    const IdParts p = parts(l, r.first_id);
    EXPECT_EQ(p.timestamp, kT);
    EXPECT_EQ(p.datacenter_id, 17);
    EXPECT_EQ(p.worker_id, 25);
    EXPECT_EQ(p.sequence, 0);
    EXPECT_EQ(snowflake::last_issued_id(s, l), r.first_id);
    EXPECT_FALSE(s.behind);
}

TEST(Generator, FreshStateIssuesStrictlyIncreasingIds) {
    const Layout l;
    GeneratorState s;
    snowflake::start_after_mark(&s, -1);
    FakeClock c(kT);
    NodeConfig n;
    std::mt19937 rng(1);
    int64_t prev = -1;
    for (int i = 0; i < 50000; i++) {
        if (rng() % 100 == 0)
            c.advance(1 + rng() % 3);
        const Result r = drive_next_ids(&s, l, &c, n);
        ASSERT_EQ(r.outcome, Outcome::Issued);
        ASSERT_GT(r.first_id, prev);
        prev = r.first_id;
    }
    EXPECT_EQ(snowflake::last_issued_id(s, l), prev);
}

TEST(Generator, SequenceExhaustsAfter4096IdsInOneMsAndAsksToWaitForTheNextMs) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    int64_t prev = -1;
    for (int i = 0; i < 4096; i++) {
        const Result r = issue(&s, l, c, n);
        ASSERT_EQ(r.outcome, Outcome::Issued) << i;
        ASSERT_EQ(parts(l, r.first_id).sequence, i);
        ASSERT_EQ(parts(l, r.first_id).timestamp, kT);
        ASSERT_GT(r.first_id, prev);
        prev = r.first_id;
    }
    const GeneratorState before = s;
    const Result r = issue(&s, l, c, n);
    ASSERT_EQ(r.outcome, Outcome::SequenceExhausted);
    EXPECT_EQ(r.wait_for_ms, kT + 1);
    expect_same_id_state(s, before);
}

TEST(Generator, SequenceRestartsAtZeroOnceTheClockAdvances) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    ASSERT_EQ(issue(&s, l, c, n, 4096).count, 4096);
    ASSERT_EQ(issue(&s, l, c, n).outcome, Outcome::SequenceExhausted);
    const int64_t last = snowflake::last_issued_id(s, l);
    c.advance();
    const Result r = issue(&s, l, c, n);
    ASSERT_EQ(r.outcome, Outcome::Issued);
    EXPECT_EQ(parts(l, r.first_id).sequence, 0);
    EXPECT_EQ(parts(l, r.first_id).timestamp, kT + 1);
    EXPECT_GT(r.first_id, last);
}

TEST(Generator, SequenceRestartsAtZeroEvenIfTheLastMsWasNotUsedUp) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    ASSERT_EQ(issue(&s, l, c, n, 10).count, 10);
    c.advance(7);
    const Result r = issue(&s, l, c, n);
    ASSERT_EQ(r.outcome, Outcome::Issued);
    EXPECT_EQ(parts(l, r.first_id).sequence, 0);
    EXPECT_EQ(parts(l, r.first_id).timestamp, kT + 7);
}

TEST(Generator, BatchGrantsConsecutiveIdsInOneMsAndNeverMoreThanTheRemainingSequence) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    Result r = issue(&s, l, c, n, 1000);
    ASSERT_EQ(r.outcome, Outcome::Issued);
    ASSERT_EQ(r.count, 1000);
    EXPECT_EQ(parts(l, r.first_id).sequence, 0);
    EXPECT_EQ(parts(l, r.first_id + 999).sequence, 999);
    EXPECT_EQ(parts(l, r.first_id + 999).timestamp, kT);
    EXPECT_EQ(snowflake::last_issued_id(s, l), r.first_id + 999);
    const int64_t prev_last = snowflake::last_issued_id(s, l);

    r = issue(&s, l, c, n, 4000);  // only 3096 left in this ms
    ASSERT_EQ(r.outcome, Outcome::Issued);
    EXPECT_EQ(r.count, 3096);
    EXPECT_EQ(r.first_id, prev_last + 1);
    EXPECT_EQ(parts(l, r.first_id + (r.count - 1)).sequence, 4095);
    EXPECT_EQ(parts(l, r.first_id + (r.count - 1)).timestamp, kT);

    EXPECT_EQ(issue(&s, l, c, n, 5).outcome, Outcome::SequenceExhausted);
    c.advance();
    r = issue(&s, l, c, n, 1000000);
    ASSERT_EQ(r.outcome, Outcome::Issued);
    EXPECT_EQ(r.count, 4096) << "a batch never spans milliseconds";
}

TEST(Generator, CountBelowOneGrantsOneId) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    for (int64_t count : {int64_t{0}, int64_t{-5}}) {
        const Result r = issue(&s, l, c, n, count);
        ASSERT_EQ(r.outcome, Outcome::Issued);
        EXPECT_EQ(r.count, 1);
    }
}

// ---- clock stepping back --------------------------------------------------

TEST(Generator, ErrorPolicyRefusesWhenTheClockStepsBackAndReportsBehindMs) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    n.policy = ClockPolicy::Error;
    ASSERT_EQ(issue(&s, l, c, n).outcome, Outcome::Issued);
    const GeneratorState before = s;
    c.step_back(12045);
    const Result r = issue(&s, l, c, n);
    ASSERT_EQ(r.outcome, Outcome::ClockBehindError);
    EXPECT_EQ(r.behind_ms, 12045);
    expect_same_id_state(s, before);
    EXPECT_EQ(s.backward_events, 1u);
    EXPECT_EQ(s.max_backward_ms, 12045);
    // Still refused while behind, even one ms behind; the episode counts once.
    c.set(kT - 1);
    EXPECT_EQ(issue(&s, l, c, n).outcome, Outcome::ClockBehindError);
    EXPECT_EQ(s.backward_events, 1u);
    // Caught up: the same ms continues.
    c.set(kT);
    const Result ok = issue(&s, l, c, n);
    ASSERT_EQ(ok.outcome, Outcome::Issued);
    EXPECT_GT(ok.first_id, snowflake::last_issued_id(before, l));
    EXPECT_FALSE(s.behind);
}

TEST(Generator, ErrorPolicyRefusesEvenBeyondAnyBound) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    n.policy = ClockPolicy::Error;
    n.max_backward_ms = 1000000;  // the bound does not turn error into borrow
    ASSERT_EQ(issue(&s, l, c, n).outcome, Outcome::Issued);
    c.step_back(1);
    EXPECT_EQ(issue(&s, l, c, n).outcome, Outcome::ClockBehindError);
}

TEST(Generator, WaitPolicyTargetsTheLastMsWhileItHasSequenceLeft) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    n.policy = ClockPolicy::Wait;
    const Result first = issue(&s, l, c, n);
    ASSERT_EQ(first.outcome, Outcome::Issued);
    c.step_back(5);
    const GeneratorState before = s;
    const Result r = issue(&s, l, c, n);
    ASSERT_EQ(r.outcome, Outcome::ClockBehindWait);
    EXPECT_EQ(r.wait_for_ms, kT);
    EXPECT_EQ(r.behind_ms, 5);
    expect_same_id_state(s, before);
    // After the clock catches up, ids continue above the old ones.
    c.set(r.wait_for_ms);
    const Result next = issue(&s, l, c, n);
    ASSERT_EQ(next.outcome, Outcome::Issued);
    EXPECT_GT(next.first_id, first.first_id);
    EXPECT_EQ(parts(l, next.first_id).timestamp, kT);
}

TEST(Generator, WaitPolicyTargetsTheNextMsWhenTheLastIsUsedUp) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    n.policy = ClockPolicy::Wait;
    ASSERT_EQ(issue(&s, l, c, n, 4096).count, 4096);
    const int64_t last = snowflake::last_issued_id(s, l);
    c.step_back(300);
    const Result r = issue(&s, l, c, n);
    ASSERT_EQ(r.outcome, Outcome::ClockBehindWait);
    EXPECT_EQ(r.wait_for_ms, kT + 1);
    EXPECT_EQ(r.behind_ms, 300);
    snowflake_test::DriveStats stats;
    const Result next = drive_next_ids(&s, l, &c, n, 1, nullptr, 1000, &stats);
    ASSERT_EQ(next.outcome, Outcome::Issued);
    EXPECT_EQ(c.now_ms, kT + 1);
    EXPECT_GE(stats.clock_waits, 1);
    EXPECT_GT(next.first_id, last);
    EXPECT_EQ(parts(l, next.first_id).timestamp, kT + 1);
    EXPECT_EQ(s.backward_events, 1u);
}

// The generator reports how far behind the clock is; applying
// max_backward_ms to the wait policy is left to the caller (it sleeps).
TEST(Generator, WaitPolicyReportsBehindMsEvenPastTheBoundSoTheCallerCanApplyIt) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    n.policy = ClockPolicy::Wait;
    n.max_backward_ms = 10;
    ASSERT_EQ(issue(&s, l, c, n).outcome, Outcome::Issued);
    c.step_back(11);
    const Result r = issue(&s, l, c, n);
    ASSERT_EQ(r.outcome, Outcome::ClockBehindWait);
    EXPECT_EQ(r.behind_ms, 11);
}

TEST(Generator, BorrowContinuesTheOpenMsWhenTheClockStepsBack) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    const Result first = issue(&s, l, c, n);
    c.step_back(50);
    const Result r = issue(&s, l, c, n);
    ASSERT_EQ(r.outcome, Outcome::Issued);
    EXPECT_EQ(r.first_id, first.first_id + 1);
    EXPECT_TRUE(s.behind);
    EXPECT_EQ(s.last_ms - c.now_ms, 50) << "borrowed ahead of the clock";
}

TEST(Generator, BorrowKeepsIssuingAboveTheLastIdRollingOverManyMsWithoutTheClock) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    n.policy = ClockPolicy::Borrow;
    n.max_backward_ms = 10000;
    const Result first = issue(&s, l, c, n);
    ASSERT_EQ(first.outcome, Outcome::Issued);
    c.step_back(50);
    int64_t prev = first.first_id;
    for (int i = 0; i < 4096 * 20; i++) {
        const Result r = drive_next_ids(&s, l, &c, n);
        ASSERT_EQ(r.outcome, Outcome::Issued) << i;
        ASSERT_GT(r.first_id, prev);
        prev = r.first_id;
    }
    EXPECT_EQ(c.now_ms, kT - 50) << "borrowing never waits for the clock";
    // 4095 ids were left in kT, then 19 full ms and one id of the 20th.
    EXPECT_GE(s.last_ms - kT, 19);
    EXPECT_LE(s.last_ms - kT, 20);
    EXPECT_EQ(s.last_ms, kT + 20);
    EXPECT_EQ(parts(l, prev).timestamp, s.last_ms);
    EXPECT_TRUE(s.behind);
    EXPECT_EQ(s.backward_events, 1u);
    EXPECT_EQ(s.last_ms - c.now_ms, 70) << "borrowed ahead of the clock";
    // max_backward_ms is the step that started the episode, not the distance
    // borrowing itself adds against a stopped clock.
    EXPECT_EQ(s.max_backward_ms, 50);
    // The clock catching up ends the episode.
    c.set(kT + 21);
    const Result r = issue(&s, l, c, n);
    ASSERT_EQ(r.outcome, Outcome::Issued);
    EXPECT_GT(r.first_id, prev);
    EXPECT_FALSE(s.behind);
    EXPECT_EQ(s.last_ms, c.now_ms);
}

TEST(Generator, BorrowLimitExactlyWhenTheNextMsWouldRunPastTheBound) {
    const Layout l;
    const int64_t bound = 100;
    NodeConfig n;
    n.policy = ClockPolicy::Borrow;
    n.max_backward_ms = bound;
    // Last ms used up: the next id goes to kT + 1, i.e. step + 1 ahead.
    {
        GeneratorState s = fresh_state();
        FakeClock c(kT);
        ASSERT_EQ(issue(&s, l, c, n, 4096).count, 4096);
        c.step_back(bound - 1);  // kT + 1 - now == bound: allowed
        const Result r = issue(&s, l, c, n);
        ASSERT_EQ(r.outcome, Outcome::Issued);
        EXPECT_EQ(parts(l, r.first_id).timestamp, kT + 1);
    }
    {
        GeneratorState s = fresh_state();
        FakeClock c(kT);
        ASSERT_EQ(issue(&s, l, c, n, 4096).count, 4096);
        c.step_back(bound);  // kT + 1 - now == bound + 1: refused
        const GeneratorState before = s;
        const Result r = issue(&s, l, c, n);
        ASSERT_EQ(r.outcome, Outcome::BorrowLimit);
        EXPECT_EQ(r.behind_ms, bound + 1);
        expect_same_id_state(s, before);
    }
    // Last ms still open: the next id stays in kT, i.e. step ahead.
    {
        GeneratorState s = fresh_state();
        FakeClock c(kT);
        ASSERT_EQ(issue(&s, l, c, n).outcome, Outcome::Issued);
        c.step_back(bound);
        EXPECT_EQ(issue(&s, l, c, n).outcome, Outcome::Issued);
        c.step_back(1);
        const Result r = issue(&s, l, c, n);
        ASSERT_EQ(r.outcome, Outcome::BorrowLimit);
        EXPECT_EQ(r.behind_ms, bound + 1);
    }
}

TEST(Generator, BorrowLimitStopsARunawayLogicalClock) {
    const Layout l = make_layout(5, 5, 2);  // 4 ids per ms
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    n.max_backward_ms = 10;
    ASSERT_EQ(issue(&s, l, c, n).outcome, Outcome::Issued);
    c.step_back(1);  // the clock then stands still at kT - 1
    int64_t prev = snowflake::last_issued_id(s, l);
    int issued = 0;
    Result r{};
    for (;;) {
        r = drive_next_ids(&s, l, &c, n);
        if (r.outcome != Outcome::Issued)
            break;
        ASSERT_GT(r.first_id, prev);
        prev = r.first_id;
        issued++;
    }
    EXPECT_EQ(c.now_ms, kT - 1);
    EXPECT_EQ(r.outcome, Outcome::BorrowLimit);
    EXPECT_EQ(r.behind_ms, 11);
    EXPECT_EQ(s.last_ms, kT + 9);  // kT + 9 - (kT - 1) == 10 == the bound
    EXPECT_EQ(issued, 3 + 9 * 4);
    // Once the clock catches up, a zero bound is fine: no borrowing needed.
    n.max_backward_ms = 0;
    c.set(kT + 9);
    const Result ok = drive_next_ids(&s, l, &c, n);
    ASSERT_EQ(ok.outcome, Outcome::Issued);
    EXPECT_GT(ok.first_id, prev);
    EXPECT_EQ(c.now_ms, kT + 10);
}

TEST(Generator, BackwardEventsCountOnePerEpisodeAndMaxBackwardRecordsTheLargestStep) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    for (int64_t step : {int64_t{30}, int64_t{50}, int64_t{10}}) {
        c.advance(100);
        ASSERT_EQ(issue(&s, l, c, n).outcome, Outcome::Issued);
        c.step_back(step);
        for (int i = 0; i < 3; i++)  // several calls in one episode
            ASSERT_EQ(issue(&s, l, c, n).outcome, Outcome::Issued);
        c.advance(step + 1);
        ASSERT_EQ(issue(&s, l, c, n).outcome, Outcome::Issued);
        EXPECT_FALSE(s.behind);
    }
    EXPECT_EQ(s.backward_events, 3u);
    EXPECT_EQ(s.max_backward_ms, 50);
}

TEST(Generator, ASecondStepDuringOneEpisodeIsMeasuredFromTheHighestClock) {
    const Layout l;
    NodeConfig n;
    n.policy = ClockPolicy::Error;
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    ASSERT_EQ(issue(&s, l, c, n).outcome, Outcome::Issued);
    c.step_back(5000);
    EXPECT_EQ(issue(&s, l, c, n).outcome, Outcome::ClockBehindError);
    c.step_back(25000);  // still behind: the same episode, a 30 s step in all
    EXPECT_EQ(issue(&s, l, c, n).outcome, Outcome::ClockBehindError);
    EXPECT_EQ(s.backward_events, 1u);
    EXPECT_EQ(s.max_backward_ms, 30000);
}

TEST(Generator, RefusedCallsWhileBehindCountTheEpisodeOnce) {
    const Layout l;
    NodeConfig n;
    for (ClockPolicy p : {ClockPolicy::Error, ClockPolicy::Wait, ClockPolicy::Borrow}) {
        n.policy = p;
        n.max_backward_ms = 5;
        GeneratorState s = fresh_state();
        FakeClock c(kT);
        ASSERT_EQ(issue(&s, l, c, n).outcome, Outcome::Issued);
        c.step_back(1000);
        for (int i = 0; i < 10; i++)
            EXPECT_NE(issue(&s, l, c, n).outcome, Outcome::Issued);
        EXPECT_EQ(s.backward_events, 1u) << snowflake::clock_policy_name(p);
        EXPECT_EQ(s.max_backward_ms, 1000);
    }
}

// ---- restart after a durable mark --------------------------------------------

TEST(Generator, StartAfterMarkResetsEverythingAndTreatsTheMarkAsUsedUp) {
    GeneratorState s = fresh_state();
    s.last_seq = 7;
    s.backward_events = 3;
    snowflake::start_after_mark(&s, kT);
    EXPECT_EQ(s.last_ms, kT);
    EXPECT_EQ(s.last_node, -1);
    EXPECT_EQ(s.reserved_ms, kT);
    EXPECT_EQ(s.backward_events, 0u);
    snowflake::start_after_mark(&s, -1);
    EXPECT_EQ(s.last_ms, -1);
    snowflake::start_after_mark(&s, -12345);
    EXPECT_EQ(s.last_ms, -1);
}

TEST(Generator, RestartWithMarkAtTheClockNeverReusesTheMarkMs) {
    const Layout l;
    for (ClockPolicy p : {ClockPolicy::Error, ClockPolicy::Wait, ClockPolicy::Borrow}) {
        GeneratorState s;
        snowflake::start_after_mark(&s, kT);
        FakeClock c(kT);
        NodeConfig n;
        n.policy = p;
        const Result r = drive_next_ids(&s, l, &c, n);
        ASSERT_EQ(r.outcome, Outcome::Issued);
        EXPECT_EQ(parts(l, r.first_id).timestamp, kT + 1) << snowflake::clock_policy_name(p);
    }
}

TEST(Generator, RestartWithMarkBehindTheClockIssuesAtTheClock) {
    const Layout l;
    GeneratorState s;
    snowflake::start_after_mark(&s, kT - 1000);
    FakeClock c(kT);
    NodeConfig n;
    n.policy = ClockPolicy::Error;
    const Result r = drive_next_ids(&s, l, &c, n);
    ASSERT_EQ(r.outcome, Outcome::Issued);
    EXPECT_EQ(parts(l, r.first_id).timestamp, kT);
    EXPECT_EQ(s.backward_events, 0u);
}

TEST(Generator, RestartWithMarkAheadErrorPolicyRefuses) {
    const Layout l;
    GeneratorState s;
    snowflake::start_after_mark(&s, kT + 100);
    FakeClock c(kT);
    NodeConfig n;
    n.policy = ClockPolicy::Error;
    const Result r = drive_next_ids(&s, l, &c, n);
    ASSERT_EQ(r.outcome, Outcome::ClockBehindError);
    EXPECT_EQ(r.behind_ms, 100);
    EXPECT_EQ(snowflake::last_issued_id(s, l), -1) << "nothing issued";
}

TEST(Generator, RestartWithMarkAheadWaitPolicyWaitsPastTheMark) {
    const Layout l;
    GeneratorState s;
    snowflake::start_after_mark(&s, kT + 100);
    FakeClock c(kT);
    NodeConfig n;
    n.policy = ClockPolicy::Wait;
    const Result w = issue(&s, l, c, n);
    ASSERT_EQ(w.outcome, Outcome::ClockBehindWait);
    EXPECT_EQ(w.wait_for_ms, kT + 101);
    const Result r = drive_next_ids(&s, l, &c, n);
    ASSERT_EQ(r.outcome, Outcome::Issued);
    EXPECT_GT(parts(l, r.first_id).timestamp, kT + 100);
}

TEST(Generator, RestartWithMarkAheadBorrowIssuesMarkPlusOneWithinTheBound) {
    const Layout l;
    NodeConfig n;
    n.policy = ClockPolicy::Borrow;
    {
        n.max_backward_ms = 101;  // mark + 1 - now == 101: allowed
        GeneratorState s;
        snowflake::start_after_mark(&s, kT + 100);
        FakeClock c(kT);
        snowflake_test::DriveStats stats;
        const Result r = drive_next_ids(&s, l, &c, n, 1, nullptr, 1000, &stats);
        ASSERT_EQ(r.outcome, Outcome::Issued);
        EXPECT_EQ(parts(l, r.first_id).timestamp, kT + 101);
        EXPECT_EQ(parts(l, r.first_id).sequence, 0);
        EXPECT_EQ(c.now_ms, kT) << "borrow does not wait";
        EXPECT_EQ(stats.reservations, 1) << "mark + 1 is past the durable mark";
        EXPECT_EQ(s.backward_events, 1u);
    }
    {
        n.max_backward_ms = 100;  // would be 101 ahead: refused
        GeneratorState s;
        snowflake::start_after_mark(&s, kT + 100);
        FakeClock c(kT);
        const Result r = drive_next_ids(&s, l, &c, n);
        ASSERT_EQ(r.outcome, Outcome::BorrowLimit);
        EXPECT_EQ(r.behind_ms, 101);
        EXPECT_EQ(snowflake::last_issued_id(s, l), -1) << "nothing issued";
    }
}

// ---- the durable mark --------------------------------------------------------

TEST(Generator, NeedReservationWhenTheNextMsPassesTheMarkWithoutChangingState) {
    const Layout l;
    GeneratorState s = fresh_state(kT);
    FakeClock c(kT);
    NodeConfig n;
    ASSERT_EQ(issue(&s, l, c, n).outcome, Outcome::Issued);
    // More ids in the reserved ms need nothing.
    ASSERT_EQ(issue(&s, l, c, n, 100).outcome, Outcome::Issued);
    c.advance();
    const GeneratorState before = s;
    const Result r = issue(&s, l, c, n);
    ASSERT_EQ(r.outcome, Outcome::NeedReservation);
    EXPECT_EQ(r.wait_for_ms, kT + 1);
    expect_same_state(s, before);
    // Reserved: the same request now succeeds.
    s.reserved_ms = kT + 1;
    const Result ok = issue(&s, l, c, n);
    ASSERT_EQ(ok.outcome, Outcome::Issued);
    EXPECT_EQ(parts(l, ok.first_id).timestamp, kT + 1);
    EXPECT_GT(ok.first_id, snowflake::last_issued_id(before, l));
}

TEST(Generator, NeedReservationWhileBorrowingKeepsIdStateAndCountsTheEpisodeOnce) {
    const Layout l;
    GeneratorState s = fresh_state(kT);
    FakeClock c(kT);
    NodeConfig n;
    ASSERT_EQ(issue(&s, l, c, n, 4096).count, 4096);
    c.step_back(5);
    const GeneratorState before = s;
    const Result r = issue(&s, l, c, n);
    ASSERT_EQ(r.outcome, Outcome::NeedReservation);
    EXPECT_EQ(r.wait_for_ms, kT + 1);
    expect_same_id_state(s, before);
    s.reserved_ms = kT + 1;
    ASSERT_EQ(issue(&s, l, c, n).outcome, Outcome::Issued);
    EXPECT_EQ(s.backward_events, 1u);
}

TEST(Generator, NoIssuedIdEverPassesTheDurableMark) {
    const Layout l;
    GeneratorState s = fresh_state(kT);
    FakeClock c(kT);
    NodeConfig n;
    std::mt19937 rng(5);
    for (int i = 0; i < 20000; i++) {
        if (rng() % 4 == 0)
            c.advance(rng() % 3);
        const Result r = drive_next_ids(&s, l, &c, n, 1 + rng() % 600, nullptr, rng() % 4);
        ASSERT_EQ(r.outcome, Outcome::Issued);
        ASSERT_LE(parts(l, r.first_id + (r.count - 1)).timestamp, s.reserved_ms);
    }
}

// ---- node changes --------------------------------------------------------------

TEST(Generator, NodeChangeWithinTheSameMsMovesToTheNextMs) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    n.worker_id = 5;
    const Result a = issue(&s, l, c, n);
    ASSERT_EQ(a.outcome, Outcome::Issued);
    // A lower worker id in the same ms would give a smaller id.
    n.worker_id = 2;
    const Result b = drive_next_ids(&s, l, &c, n);
    ASSERT_EQ(b.outcome, Outcome::Issued);
    EXPECT_GT(b.first_id, a.first_id);
    EXPECT_EQ(parts(l, b.first_id).timestamp, kT + 1);
    EXPECT_EQ(parts(l, b.first_id).worker_id, 2);
    // Same for a datacenter change.
    n.datacenter_id = 0;
    const Result d = drive_next_ids(&s, l, &c, n);
    ASSERT_EQ(d.outcome, Outcome::Issued);
    EXPECT_GT(d.first_id, b.first_id);
    EXPECT_EQ(parts(l, d.first_id).timestamp, kT + 2);
}

TEST(Generator, NodeChangeWhileBorrowingMovesToTheNextLogicalMs) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    n.worker_id = 9;
    const Result a = issue(&s, l, c, n);
    c.step_back(10);
    n.worker_id = 0;
    const Result b = issue(&s, l, c, n);
    ASSERT_EQ(b.outcome, Outcome::Issued);
    EXPECT_GT(b.first_id, a.first_id);
    EXPECT_EQ(parts(l, b.first_id).timestamp, kT + 1);
}

// ---- random sequence start -------------------------------------------------------

namespace {

void check_random_start(const Layout &l, int64_t max_count, bool borrow_phase) {
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    n.random_start = true;
    std::mt19937 rng(42);
    const int64_t half = (l.max_sequence() + 1) / 2;
    std::set<int64_t> first_seqs;
    int64_t prev = -1;
    int64_t prev_ms = -1;
    for (int i = 0; i < 30000; i++) {
        if (rng() % 3 == 0)
            c.advance(1);
        if (borrow_phase && i == 15000)
            c.step_back(100);
        const int64_t count = 1 + static_cast<int64_t>(rng() % static_cast<uint32_t>(max_count));
        const Result r = drive_next_ids(&s, l, &c, n, count, &rng);
        ASSERT_EQ(r.outcome, Outcome::Issued);
        ASSERT_GT(r.first_id, prev);
        const IdParts p = parts(l, r.first_id);
        if (p.timestamp != prev_ms) {
            ASSERT_GE(p.sequence, 0);
            ASSERT_LT(p.sequence, half) << "first sequence of a new ms";
            first_seqs.insert(p.sequence);
        }
        // Strictly increasing from batch to batch (and consecutive within
        // one) means unique.
        ASSERT_EQ(parts(l, r.first_id + (r.count - 1)).timestamp, p.timestamp);
        prev = r.first_id + (r.count - 1);
        prev_ms = p.timestamp;
    }
    if (half > 1) {
        EXPECT_GT(first_seqs.size(), 1u) << "the start offset is actually random";
    }
}

}  // namespace

TEST(Generator, RandomStartBeginsEachMsInTheLowerHalfAndIdsStayIncreasing) {
    check_random_start(Layout{}, 300, false);
}

TEST(Generator, RandomStartWithANarrowSequenceAndBorrowingStaysIncreasing) {
    check_random_start(make_layout(3, 3, 4), 5, true);
}

TEST(Generator, RandomStartWithOneSequenceBitAlwaysStartsAtZero) {
    const Layout l = make_layout(0, 0, 1);
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    n.random_start = true;
    for (uint32_t random : {0u, 1u, 7u, 0xFFFFFFFFu}) {
        c.advance();
        const Result r = issue(&s, l, c, n, 1, random);
        ASSERT_EQ(r.outcome, Outcome::Issued);
        EXPECT_EQ(parts(l, r.first_id).sequence, 0);
    }
}

TEST(Generator, RandomStartIgnoredWhenOff) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(kT);
    NodeConfig n;
    const Result r = issue(&s, l, c, n, 1, 1234567);
    ASSERT_EQ(r.outcome, Outcome::Issued);
    EXPECT_EQ(parts(l, r.first_id).sequence, 0);
}

// ---- ends of time ------------------------------------------------------------------

TEST(Generator, ClockBeforeEpochForNegativeNow) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(-1);
    NodeConfig n;
    const GeneratorState before = s;
    const Result r = issue(&s, l, c, n);
    EXPECT_EQ(r.outcome, Outcome::ClockBeforeEpoch);
    EXPECT_EQ(r.behind_ms, 1);
    expect_same_state(s, before);
    c.set(-1000000);
    EXPECT_EQ(issue(&s, l, c, n).outcome, Outcome::ClockBeforeEpoch);
    c.set(0);
    const Result ok = issue(&s, l, c, n);
    ASSERT_EQ(ok.outcome, Outcome::Issued);
    EXPECT_EQ(parts(l, ok.first_id).timestamp, 0);
}

// next_ids computes behind_ms as -now (generator.cpp:55), which is signed
// overflow (UB) for now_ms == INT64_MIN.  Only reachable if the caller passes
// such a clock value; see the report.
TEST(Generator, ClockBeforeEpochForMostNegativeNowDoesNotOverflow) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(INT64_MIN);
    NodeConfig n;
    const Result r = issue(&s, l, c, n);
    EXPECT_EQ(r.outcome, Outcome::ClockBeforeEpoch);
    EXPECT_GT(r.behind_ms, 0);
}

TEST(Generator, LifetimeOverPastTheLastTimestampInsteadOfWrapping) {
    const Layout l = make_layout(10, 10, 8);  // 35 timestamp bits
    ASSERT_EQ(l.timestamp_bits(), 35);
    const int64_t end = l.max_timestamp();
    GeneratorState s = fresh_state();
    FakeClock c(end - 1);
    NodeConfig n;
    n.datacenter_id = 1023;
    n.worker_id = 1022;  // not the max node: the test below covers that
    ASSERT_EQ(drive_next_ids(&s, l, &c, n).outcome, Outcome::Issued);
    c.set(end);
    const Result r = drive_next_ids(&s, l, &c, n, 256);
    ASSERT_EQ(r.outcome, Outcome::Issued);
    EXPECT_EQ(r.count, 256);
    EXPECT_EQ(r.first_id + (r.count - 1), INT64_MAX - 256);
    EXPECT_EQ(parts(l, r.first_id).timestamp, end);
    // The ms is used up: waiting for the next one ends in LifetimeOver.
    const Result w = issue(&s, l, c, n);
    ASSERT_EQ(w.outcome, Outcome::SequenceExhausted);
    const GeneratorState before = s;
    const Result over = drive_next_ids(&s, l, &c, n);
    EXPECT_EQ(over.outcome, Outcome::LifetimeOver);
    EXPECT_EQ(c.now_ms, end + 1);
    expect_same_id_state(s, before);
    c.advance(1000);
    EXPECT_EQ(issue(&s, l, c, n).outcome, Outcome::LifetimeOver);
}

// The very last id of the lifetime (largest datacenter and worker id) is
// INT64_MAX: arithmetic that ends a batch there must not overflow (once
// `first + n - 1` did; only UBSan saw it: run this under the sanitize build).
TEST(Generator, TheVeryLastIdOfTheLifetimeIsInt64MaxWithoutOverflow) {
    const Layout l = make_layout(10, 10, 8);
    const int64_t end = l.max_timestamp();
    GeneratorState s = fresh_state();
    FakeClock c(end);
    NodeConfig n;
    n.datacenter_id = 1023;
    n.worker_id = 1023;
    const Result r = issue(&s, l, c, n, 256);
    ASSERT_EQ(r.outcome, Outcome::Issued);
    EXPECT_EQ(r.first_id + (r.count - 1), INT64_MAX);
    EXPECT_EQ(snowflake::last_issued_id(s, l), INT64_MAX);
    EXPECT_EQ(issue(&s, l, c, n).outcome, Outcome::SequenceExhausted);
}

TEST(Generator, LifetimeOverWhenBorrowingPastTheLastTimestamp) {
    const Layout l = make_layout(10, 10, 8);
    const int64_t end = l.max_timestamp();
    GeneratorState s = fresh_state();
    FakeClock c(end);
    NodeConfig n;
    ASSERT_EQ(issue(&s, l, c, n, 256).count, 256);
    c.step_back(3);
    EXPECT_EQ(issue(&s, l, c, n).outcome, Outcome::LifetimeOver);
}

TEST(Generator, LifetimeOverWhenTheClockIsPastTheLastTimestamp) {
    const Layout l;
    GeneratorState s = fresh_state();
    FakeClock c(l.max_timestamp() + 1);
    NodeConfig n;
    EXPECT_EQ(issue(&s, l, c, n).outcome, Outcome::LifetimeOver);
    EXPECT_EQ(snowflake::last_issued_id(s, l), -1) << "nothing issued";
}

// ---- randomized property test -------------------------------------------------------

namespace {

struct PropertyCounts {
    std::map<Outcome, long> outcomes;
    long restarts = 0;
};

void run_property(const Layout &l, uint64_t seed, int steps, PropertyCounts *counts) {
    std::mt19937_64 rng(seed);
    GeneratorState s;
    snowflake::start_after_mark(&s, -1);
    FakeClock c(1000000000);
    NodeConfig n;
    const int64_t bounds[] = {0, 1, 5, 50, 1000, 10000};
    const int64_t half = (l.max_sequence() + 1) / 2;
    int64_t prev = -1;
    for (int step = 0; step < steps; step++) {
        // Random walk of the wall clock: mostly still or forward, sometimes
        // big jumps forward, sometimes small and big steps back.
        const unsigned move = static_cast<unsigned>(rng() % 1000);
        if (move < 400) {
        } else if (move < 750) {
            c.advance(1);
        } else if (move < 850) {
            c.advance(2 + static_cast<int64_t>(rng() % 5));
        } else if (move < 900) {
            c.advance(static_cast<int64_t>(rng() % 2000));
        } else if (move < 960) {
            c.step_back(1 + static_cast<int64_t>(rng() % 20));
        } else if (move < 985) {
            c.step_back(21 + static_cast<int64_t>(rng() % 180));
        } else if (move < 987) {
            c.step_back(500 + static_cast<int64_t>(rng() % 4500));
        }
        // Random settings changes (reloads).
        if (rng() % 50 == 0)
            n.policy = static_cast<ClockPolicy>(rng() % 3);
        if (rng() % 100 == 0)
            n.max_backward_ms = bounds[rng() % 6];
        if (rng() % 300 == 0) {
            n.datacenter_id = static_cast<int64_t>(rng() % (l.max_datacenter_id() + 1));
            n.worker_id = static_cast<int64_t>(rng() % (l.max_worker_id() + 1));
        }
        if (rng() % 200 == 0)
            n.random_start = !n.random_start;
        // A crash and restart from the durable mark.
        if (rng() % 20000 == 0) {
            snowflake::start_after_mark(&s, s.reserved_ms);
            counts->restarts++;
        }
        const int64_t count =
            rng() % 10 < 7 ? 1
                           : 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(
                                                               l.max_sequence() + 100));
        const snowflake::Request req =
            make_request(c, n, count, static_cast<uint32_t>(rng()));
        GeneratorState pre = s;
        Result r = snowflake::next_ids(&s, l, req);
        counts->outcomes[r.outcome]++;
        if (r.outcome == Outcome::NeedReservation) {
            ASSERT_GT(r.wait_for_ms, pre.reserved_ms);
            ASSERT_EQ(s.last_ms, pre.last_ms);
            ASSERT_EQ(s.last_seq, pre.last_seq);
            ASSERT_EQ(s.last_node, pre.last_node);
            ASSERT_EQ(snowflake::last_issued_id(s, l), snowflake::last_issued_id(pre, l));
            // The reserver extends the mark; then the same request goes through.
            s.reserved_ms = r.wait_for_ms + static_cast<int64_t>(rng() % 100);
            pre = s;
            r = snowflake::next_ids(&s, l, req);
            ASSERT_NE(r.outcome, Outcome::NeedReservation) << "step " << step;
            counts->outcomes[r.outcome]++;
        }
        const int64_t now = req.now_ms;
        const int64_t last = pre.last_ms;
        // Which outcomes the policy allows.
        if (now < last) {
            ASSERT_EQ(s.backward_events, pre.backward_events + (pre.behind ? 0u : 1u));
            if (!pre.behind) {
                ASSERT_GE(s.max_backward_ms, last - now) << "the step starting an episode";
            }
            switch (n.policy) {
            case ClockPolicy::Error:
                ASSERT_EQ(r.outcome, Outcome::ClockBehindError) << "step " << step;
                ASSERT_EQ(r.behind_ms, last - now);
                break;
            case ClockPolicy::Wait:
                ASSERT_EQ(r.outcome, Outcome::ClockBehindWait) << "step " << step;
                ASSERT_TRUE(r.wait_for_ms == last || r.wait_for_ms == last + 1);
                ASSERT_EQ(r.behind_ms, last - now);
                break;
            case ClockPolicy::Borrow:
                ASSERT_TRUE(r.outcome == Outcome::Issued || r.outcome == Outcome::BorrowLimit)
                    << "step " << step << " outcome " << static_cast<int>(r.outcome);
                if (r.outcome == Outcome::BorrowLimit) {
                    ASSERT_GT(r.behind_ms, n.max_backward_ms);
                }
                break;
            }
        } else if (now == last) {
            ASSERT_TRUE(r.outcome == Outcome::Issued || r.outcome == Outcome::SequenceExhausted)
                << "step " << step << " outcome " << static_cast<int>(r.outcome);
            if (r.outcome == Outcome::SequenceExhausted) {
                ASSERT_EQ(r.wait_for_ms, now + 1);
            }
        } else {
            ASSERT_EQ(r.outcome, Outcome::Issued) << "step " << step;
        }
        if (r.outcome != Outcome::Issued) {
            ASSERT_EQ(s.last_ms, pre.last_ms);
            ASSERT_EQ(s.last_seq, pre.last_seq);
            ASSERT_EQ(snowflake::last_issued_id(s, l), snowflake::last_issued_id(pre, l));
            continue;
        }
        // Issued: a run of consecutive ids in one ms, all above every earlier id.
        ASSERT_GE(r.count, 1);
        ASSERT_LE(r.count, count);
        ASSERT_GT(r.first_id, prev) << "step " << step;
        const int64_t last_id = r.first_id + (r.count - 1);
        const IdParts a = parts(l, r.first_id);
        const IdParts b = parts(l, last_id);
        ASSERT_EQ(a.timestamp, b.timestamp);
        ASSERT_EQ(b.sequence - a.sequence, r.count - 1);
        ASSERT_EQ(a.datacenter_id, n.datacenter_id);
        ASSERT_EQ(a.worker_id, n.worker_id);
        ASSERT_GE(a.timestamp, now) << "ids never carry a time before the wall clock";
        ASSERT_LE(a.timestamp - now, n.max_backward_ms);
        if (n.policy != ClockPolicy::Borrow) {
            ASSERT_EQ(a.timestamp, now);
        }
        ASSERT_LE(a.timestamp, s.reserved_ms) << "never past the durable mark";
        if (a.timestamp > last) {
            ASSERT_LT(a.sequence, n.random_start ? half : 1) << "first sequence of a new ms";
        }
        ASSERT_EQ(snowflake::last_issued_id(s, l), last_id);
        ASSERT_EQ(s.last_ms, a.timestamp);
        ASSERT_EQ(s.behind, now < a.timestamp);
        prev = last_id;
    }
}

void expect_all_outcomes_exercised(const PropertyCounts &counts) {
    for (Outcome o : {Outcome::Issued, Outcome::SequenceExhausted, Outcome::ClockBehindWait,
                      Outcome::ClockBehindError, Outcome::BorrowLimit, Outcome::NeedReservation})
        EXPECT_GT(counts.outcomes.count(o) ? counts.outcomes.at(o) : 0, 0)
            << "outcome " << static_cast<int>(o) << " never seen";
    EXPECT_EQ(counts.outcomes.count(Outcome::ClockBeforeEpoch), 0u);
    EXPECT_EQ(counts.outcomes.count(Outcome::LifetimeOver), 0u);
    EXPECT_GT(counts.restarts, 0);
}

}  // namespace

TEST(GeneratorProperty, RandomClockWalkIssuesOnlyIncreasingIdsAndAllowedOutcomes) {
    PropertyCounts counts;
    run_property(Layout{}, 20240601, 200000, &counts);
    expect_all_outcomes_exercised(counts);
}

TEST(GeneratorProperty, RandomClockWalkWithANarrowSequenceLayout) {
    PropertyCounts counts;
    run_property(make_layout(2, 2, 3), 77, 200000, &counts);
    expect_all_outcomes_exercised(counts);
}
