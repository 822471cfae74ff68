// Unit tests of the identity history (src/core/identity_history.*): since
// when a node may have issued ids under its identity, and until when under
// the one it left, through every kind of change.
#include <gtest/gtest.h>

#include <cstdint>

#include "identity_history.hpp"

using snowflake::IdentityHistory;
using snowflake::NodePair;

namespace {

const NodePair kNone{0, -1};
const NodePair kA{17, 25};
const NodePair kB{17, 26};
const NodePair kC{3, 4};

// A node that started fresh under A at t = 1000.
IdentityHistory fresh_a() {
    return snowflake::history_after_change(IdentityHistory{}, kNone, kA, 1000, -1);
}

}  // namespace

TEST(IdentityHistory, AFreshNodeStartsItsFirstIdentityAtTheFloor) {
    const IdentityHistory h = fresh_a();
    EXPECT_EQ(h.since_unix_ms, 1000);
    EXPECT_TRUE(h.retired.none()) << "no identity was left";
    EXPECT_TRUE(h.complete);
}

TEST(IdentityHistory, AChangeRetiresTheOldIdentityUntilTheBoundAndStartsTheNewOne) {
    const IdentityHistory h = snowflake::history_after_change(fresh_a(), kA, kB, 5000, 4800);
    EXPECT_EQ(h.since_unix_ms, 5000);
    EXPECT_EQ(h.retired, kA);
    EXPECT_EQ(h.retired_since_unix_ms, 1000);
    EXPECT_EQ(h.retired_until_unix_ms, 4800);
    EXPECT_TRUE(h.complete) << "A and B are all it ever used";
}

TEST(IdentityHistory, TheSameIdentityChangesNothing) {
    IdentityHistory h = fresh_a();
    h.not_before_unix_ms = 7;
    EXPECT_TRUE(snowflake::history_after_change(h, kA, kA, 9000, 8000) == h);
    EXPECT_TRUE(snowflake::history_after_change(h, NodePair{99, -1}, kNone, 9000, 8000) == h)
        << "no identity is no identity, whatever the datacenter";
}

// Back to the identity it left: its ids from before are still there, so its
// since is the one it had, not the time it came back.
TEST(IdentityHistory, GoingBackToTheRetiredIdentityKeepsItsOriginalSince) {
    const IdentityHistory ab = snowflake::history_after_change(fresh_a(), kA, kB, 5000, 4800);
    const IdentityHistory aba = snowflake::history_after_change(ab, kB, kA, 9000, 8800);
    EXPECT_EQ(aba.since_unix_ms, 1000);
    EXPECT_EQ(aba.retired, kB);
    EXPECT_EQ(aba.retired_since_unix_ms, 5000);
    EXPECT_EQ(aba.retired_until_unix_ms, 8800);
    EXPECT_TRUE(aba.complete);
}

// A, B, then C: the node remembers C and B only, so it no longer knows that
// A is the only other identity it used.  Moving on to A (or to any identity
// but B) has an unknown since: A's ids of long ago may be there.
TEST(IdentityHistory, AThirdIdentityMakesEveryOtherOneUnknown) {
    const IdentityHistory ab = snowflake::history_after_change(fresh_a(), kA, kB, 5000, 4800);
    const IdentityHistory bc = snowflake::history_after_change(ab, kB, kC, 9000, 8800);
    EXPECT_EQ(bc.since_unix_ms, 9000) << "C was never used: the history was complete";
    EXPECT_FALSE(bc.complete);
    const IdentityHistory ca = snowflake::history_after_change(bc, kC, kA, 12000, 11800);
    EXPECT_EQ(ca.since_unix_ms, -1) << "A was used before what the node remembers";
    const IdentityHistory cb = snowflake::history_after_change(bc, kC, kB, 12000, 11800);
    EXPECT_EQ(cb.since_unix_ms, 5000) << "B is the retired one: its since is known";
    const IdentityHistory cd =
        snowflake::history_after_change(bc, kC, NodePair{9, 9}, 12000, 11800);
    EXPECT_EQ(cd.since_unix_ms, -1);
}

TEST(IdentityHistory, AFileFromBeforeTheHistoryKnowsNothingOnceIdsWereIssued) {
    const IdentityHistory old = snowflake::history_before_records(1505914988849);
    EXPECT_EQ(old.since_unix_ms, -1);
    EXPECT_FALSE(old.complete);
    EXPECT_EQ(snowflake::history_after_change(old, kA, kB, 5000, 4800).since_unix_ms, -1)
        << "B may have been used before the file was written";
    const IdentityHistory none = snowflake::history_before_records(-1);
    EXPECT_TRUE(none.complete) << "no id was ever issued";
    EXPECT_EQ(snowflake::history_after_change(none, kA, kB, 5000, 4800).since_unix_ms, 5000);
}

TEST(IdentityHistory, DroppingAnIdentityRetiresItAndTakingItBackRestoresIt) {
    const IdentityHistory dropped = snowflake::history_after_change(fresh_a(), kA, kNone, 5000, 4800);
    EXPECT_EQ(dropped.since_unix_ms, -1);
    EXPECT_EQ(dropped.retired, kA);
    EXPECT_EQ(dropped.retired_until_unix_ms, 4800);
    const IdentityHistory back = snowflake::history_after_change(dropped, kNone, kA, 9000, -1);
    EXPECT_EQ(back.since_unix_ms, 1000);
    EXPECT_TRUE(back.retired.none()) << "the one it left is the one it has again";
    const IdentityHistory other = snowflake::history_after_change(dropped, kNone, kB, 9000, -1);
    EXPECT_EQ(other.since_unix_ms, 9000);
    EXPECT_EQ(other.retired, kA) << "still the last one left";
    EXPECT_TRUE(other.complete);
}

TEST(IdentityHistory, ANewIdentityHasNoNotBeforeBound) {
    IdentityHistory h = fresh_a();
    h.not_before_unix_ms = 4000;
    EXPECT_EQ(snowflake::history_after_change(h, kA, kB, 5000, 4800).not_before_unix_ms, -1);
}
