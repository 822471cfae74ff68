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

namespace {

struct RateChangeRun {
    int stale_after_settling = 0;  // answers not the true ms, 5 ms or more after the change
    int stale_by_more = 0;         // answers more than one ms off, at any time
    double final_rate = 0;
};

// Real time in 0..20 us steps; the counter runs at kTicksPerUs, and from 50 ms
// in at kTicksPerUs * factor.  With `remeasure`, every real read re-measures
// the rate, as the server's processes do.
RateChangeRun run_rate_change(double factor, bool remeasure) {
    std::mt19937_64 rng(11);
    MsClock c;
    c.ticks_per_us = kTicksPerUs;
    int64_t now_ns = 1700000000000LL * 1000000;
    const int64_t mono0 = now_ns - 5000000000LL;  // CLOCK_MONOTONIC runs from boot
    const int64_t change_ns = now_ns + 50000000;
    uint64_t tick_at_change = 0;
    RateChangeRun out;
    for (int i = 0; i < 100000; i++) {
        now_ns += static_cast<int64_t>(rng() % 20000);
        uint64_t tick;
        if (now_ns < change_ns) {
            tick = static_cast<uint64_t>((now_ns - mono0) / 1000.0 * kTicksPerUs);
            tick_at_change = tick;
        } else {
            tick = tick_at_change +
                   static_cast<uint64_t>((now_ns - change_ns) / 1000.0 * kTicksPerUs * factor);
        }
        int64_t ms;
        if (snowflake::ms_clock_current(c, tick, &ms)) {
            const int64_t true_ms = now_ns / 1000000;
            if (ms != true_ms && now_ns > change_ns + 5000000)
                out.stale_after_settling++;
            if (ms < true_ms - 1 || ms > true_ms)
                out.stale_by_more++;
        } else {
            if (remeasure)
                snowflake::ms_clock_measure_rate(&c, tick, now_ns - mono0);
            snowflake::ms_clock_update(&c, tick, now_ns, c.ticks_per_us);
        }
    }
    out.final_rate = c.ticks_per_us;
    return out;
}

}  // namespace

// A running server's tick rate changes (a VM moved to a host whose counter
// runs at half the rate, or 1.5x, or 0.8x): re-measuring at the real reads,
// the cache answers only the true millisecond again within a few
// milliseconds, and meanwhile never one more than a millisecond old.
TEST(MsClock, AdoptsAChangedTickRateWithinAFewMilliseconds) {
    for (double factor : {0.5, 1.5, 0.8}) {
        const RateChangeRun r = run_rate_change(factor, true);
        EXPECT_EQ(r.stale_after_settling, 0) << "factor " << factor;
        EXPECT_EQ(r.stale_by_more, 0) << "factor " << factor;
        EXPECT_NEAR(r.final_rate, kTicksPerUs * factor, kTicksPerUs * factor * 0.011);
    }
}

// The failure the re-measuring prevents: with the start-up rate kept, a
// counter that slowed down makes the cache answer milliseconds that ended.
TEST(MsClock, WithoutRemeasuringASlowerCounterAnswersEndedMilliseconds) {
    const RateChangeRun r = run_rate_change(0.5, false);
    EXPECT_GT(r.stale_after_settling, 1000);
}

TEST(MsClock, ARateIsOnlyMeasuredOverAtLeastAMillisecondAndTicksGoingBackRestartIt) {
    MsClock c;
    c.ticks_per_us = kTicksPerUs;
    snowflake::ms_clock_measure_rate(&c, 1000000, 10000000);
    snowflake::ms_clock_measure_rate(&c, 1000000 + 2600 * 500 / 2, 10000000 + 500000);  // 0.5 ms, half rate
    EXPECT_EQ(c.ticks_per_us, kTicksPerUs) << "too short an interval";
    snowflake::ms_clock_measure_rate(&c, 500, 10000000 + 3000000);  // ticks went back
    EXPECT_EQ(c.ticks_per_us, kTicksPerUs);
    EXPECT_EQ(c.rate_tick, 500u);
    snowflake::ms_clock_measure_rate(&c, 500 + 2600 * 2000, 10000000 + 5000000);  // 2 ms at 1x
    EXPECT_EQ(c.ticks_per_us, kTicksPerUs) << "within 1%: kept";
    snowflake::ms_clock_measure_rate(&c, 500 + 2600 * 2000 + 1300 * 2000, 10000000 + 7000000);
    EXPECT_NEAR(c.ticks_per_us, kTicksPerUs / 2, 0.01);
}
