// The tick-counter millisecond cache: it may only ever answer the millisecond
// the real clock was in, and only before that millisecond can have ended.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "ms_clock.hpp"

using snowflake::MsClock;

namespace {
constexpr double kTicksPerUs = 2600.0;  // a 2.6 GHz counter
}

TEST(MsClock, EmptyClockAlwaysAsksForARealRead) {
    MsClock c;
    int64_t ms;
    EXPECT_FALSE(snowflake::ms_clock_current(c, 0, &ms));
    EXPECT_FALSE(snowflake::ms_clock_current(c, 123456, &ms));
}

TEST(MsClock, AnswersTheMillisecondOnlyBeforeItCanHaveEnded) {
    MsClock c;
    const uint64_t t0 = 1000000000;
    // Read at 0.100 ms into millisecond 5000: 900 us left, 790 us trusted.
    snowflake::ms_clock_update(&c, t0, 5000LL * 1000000 + 100000, kTicksPerUs);
    int64_t ms = -1;
    ASSERT_TRUE(snowflake::ms_clock_current(c, t0, &ms));
    EXPECT_EQ(ms, 5000);
    EXPECT_TRUE(snowflake::ms_clock_current(c, t0 + static_cast<uint64_t>(789 * kTicksPerUs), &ms));
    EXPECT_FALSE(snowflake::ms_clock_current(c, t0 + static_cast<uint64_t>(791 * kTicksPerUs), &ms));
    EXPECT_FALSE(snowflake::ms_clock_current(c, t0 + static_cast<uint64_t>(900 * kTicksPerUs), &ms));
}

TEST(MsClock, TicksGoingBackwardsForceARealRead) {
    MsClock c;
    snowflake::ms_clock_update(&c, 5000000, 7LL * 1000000, kTicksPerUs);
    int64_t ms;
    EXPECT_TRUE(snowflake::ms_clock_current(c, 5000000, &ms));
    EXPECT_FALSE(snowflake::ms_clock_current(c, 4999999, &ms));
}

TEST(MsClock, ReadNearTheEndOfAMillisecondTrustsNothing) {
    MsClock c;
    snowflake::ms_clock_update(&c, 1000, 42LL * 1000000 + 990000, kTicksPerUs);  // 10 us left
    int64_t ms;
    EXPECT_FALSE(snowflake::ms_clock_current(c, 1000, &ms));
}

TEST(MsClock, NegativeTimesRoundTowardsMinusInfinity) {
    MsClock c;
    snowflake::ms_clock_update(&c, 1000, -1, kTicksPerUs);  // 1 ns before 1970
    EXPECT_EQ(c.unix_ms, -1);
}

// Simulated real time against a counter that runs up to 1% fast or slow
// relative to the calibration: the cache never answers a millisecond that
// has already ended.
TEST(MsClock, NeverAnswersAnEndedMillisecondUnderCalibrationError) {
    std::mt19937_64 rng(7);
    for (double drift : {0.99, 1.0, 1.01}) {
        MsClock c;
        int64_t now_ns = 1700000000000LL * 1000000;
        for (int i = 0; i < 200000; i++) {
            now_ns += static_cast<int64_t>(rng() % 40000);  // 0..40 us steps
            const uint64_t tick = static_cast<uint64_t>(now_ns / 1000.0 * kTicksPerUs * drift);
            int64_t ms;
            if (snowflake::ms_clock_current(c, tick, &ms)) {
                ASSERT_EQ(ms, now_ns / 1000000) << "drift " << drift << " step " << i;
            } else {
                snowflake::ms_clock_update(&c, tick, now_ns, kTicksPerUs);
            }
        }
    }
}
