// The registry's clock beside a node's: the skew measured within its
// error, confirmations that end by the registry's clock when the node is
// ahead of it, and pairs given anew used only after the registry's now().
#include <gtest/gtest.h>

#include <cstdint>

#include "registry_clock.hpp"

using snowflake::ClockSkew;
using snowflake::RegistryReading;

namespace {

constexpr int64_t kT = 1800000000000;  // ms since 1970

// An exchange that left at kT on the node's clock and took rtt_ms, answered
// by a registry whose clock is registry_ahead_us ahead of the node's.
RegistryReading reading(int64_t rtt_ms, int64_t registry_ahead_us) {
    RegistryReading r;
    r.asked_unix_ms = kT - 5;
    r.sent_unix_ms = kT;
    r.received_unix_ms = kT + rtt_ms;
    r.registry_unix_us = (kT * 1000) + rtt_ms * 500 + registry_ahead_us;
    return r;
}

}  // namespace

TEST(RegistryClock, ClocksInStepMeasureNoSkew) {
    const ClockSkew s = snowflake::measure_skew(reading(2, 0));
    EXPECT_LE(s.offset_ms < 0 ? -s.offset_ms : s.offset_ms, 1);
    EXPECT_GE(s.error_ms, 1);
    EXPECT_LE(s.error_ms, 3);
    EXPECT_FALSE(snowflake::skew_beyond(s, 0));
}

TEST(RegistryClock, OffsetIsTheNodesMinusTheRegistrys) {
    // The registry 8 s behind the node: the node is 8000 ms ahead.
    const ClockSkew behind = snowflake::measure_skew(reading(2, -8000000));
    EXPECT_NEAR(static_cast<double>(behind.offset_ms), 8000.0, 1.0);
    EXPECT_TRUE(snowflake::skew_beyond(behind, 1000));
    EXPECT_TRUE(snowflake::skew_beyond(behind, 7990));
    EXPECT_FALSE(snowflake::skew_beyond(behind, 8000));  // within its error
    const ClockSkew ahead = snowflake::measure_skew(reading(2, 3000000));
    EXPECT_NEAR(static_cast<double>(ahead.offset_ms), -3000.0, 1.0);
    EXPECT_TRUE(snowflake::skew_beyond(ahead, 1000));
}

TEST(RegistryClock, ALongRoundTripProvesNothing) {
    // 3 s on the way: the registry's now() could lie anywhere in it, so a
    // 1.2 s offset at the middle is not proven beyond 1 s.
    const ClockSkew s = snowflake::measure_skew(reading(3000, -1200000));
    EXPECT_GE(s.error_ms, 1500);
    EXPECT_FALSE(snowflake::skew_beyond(s, 1000));
    // Every registry now() in the span measures within the error of the truth.
    for (int64_t at_us = 0; at_us <= 3001000; at_us += 250000) {
        RegistryReading r = reading(3000, 0);
        r.registry_unix_us = kT * 1000 + at_us;  // clocks in step, now() anywhere
        const ClockSkew m = snowflake::measure_skew(r);
        EXPECT_LE(m.offset_ms < 0 ? -m.offset_ms : m.offset_ms, m.error_ms) << at_us;
    }
}

TEST(RegistryClock, ConfirmationEndsByTheRegistrysClockWhenTheNodeIsAhead) {
    const int64_t lease = 20000;
    // In step: a lease from when the node asked.
    RegistryReading r = reading(2, 0);
    EXPECT_EQ(snowflake::confirmation_end(r, lease), r.asked_unix_ms + lease);
    // The registry 8 s behind: its now() plus the lease, 8 s earlier on the
    // node's clock -- never past what the registry promised.
    r = reading(2, -8000000);
    const int64_t end = snowflake::confirmation_end(r, lease);
    EXPECT_LE(end * 1000, r.registry_unix_us + lease * 1000);
    EXPECT_NEAR(static_cast<double>(end), static_cast<double>(kT + lease - 8000), 2.0);
    // The registry ahead: the node's own lease, no longer.
    r = reading(2, 5000000);
    EXPECT_EQ(snowflake::confirmation_end(r, lease), r.asked_unix_ms + lease);
}

TEST(RegistryClock, GrantFloorIsAtOrAfterTheRegistrysNow) {
    RegistryReading r = reading(2, 3000000);
    EXPECT_GE(snowflake::grant_floor(r) * 1000, r.registry_unix_us);
    EXPECT_LT(snowflake::grant_floor(r) * 1000, r.registry_unix_us + 1000);
    r.registry_unix_us = kT * 1000;  // a whole millisecond
    EXPECT_EQ(snowflake::grant_floor(r), kT);
    r.registry_unix_us = kT * 1000 + 1;
    EXPECT_EQ(snowflake::grant_floor(r), kT + 1);
}
