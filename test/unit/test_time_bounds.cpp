// Unit tests of the id bounds of time conditions (src/core/time_bounds.*):
// for every comparison, every id near the bound is on the right side of it,
// checked against the definition ts(id) CMP t with times in microseconds.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <vector>

#include "layouts.hpp"
#include "time_bounds.hpp"

using snowflake::Layout;
using snowflake::RangeEnd;
using snowflake::TimeCmp;
using snowflake::TimePoint;
using snowflake_test::make_layout;

namespace {

// floor division for the tests' microsecond times
int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if (a % b != 0 && (a < 0) != (b < 0))
        --q;
    return q;
}

TimePoint point_us(int64_t t_us) {
    const int64_t f = floor_div(t_us, 1000);
    return TimePoint{f, t_us != f * 1000};
}

// The definition: the id's time in microseconds.
int64_t id_time_us(const Layout &l, int64_t id) {
    return (l.epoch_ms + (id >> l.timestamp_shift())) * 1000;
}

bool holds(const Layout &l, int64_t id, TimeCmp cmp, int64_t t_us) {
    const int64_t ts = id_time_us(l, id);
    switch (cmp) {
    case TimeCmp::AtOrAfter:
        return ts >= t_us;
    case TimeCmp::After:
        return ts > t_us;
    case TimeCmp::AtOrBefore:
        return ts <= t_us;
    case TimeCmp::Before:
        return ts < t_us;
    }
    return false;
}

bool lower_kind(TimeCmp c) { return c == TimeCmp::AtOrAfter || c == TimeCmp::After; }

// Ids of a few milliseconds around field `center`: the first, second and
// last id of each, within the layout's range.
std::vector<int64_t> ids_around(const Layout &l, int64_t center) {
    std::vector<int64_t> ids;
    const int64_t low_max = (int64_t{1} << l.timestamp_shift()) - 1;
    for (int64_t f = center - 2; f <= center + 2; f++) {
        if (f < 0 || f > l.max_timestamp())
            continue;
        for (int64_t low : {int64_t{0}, int64_t{1}, low_max - 1, low_max})
            ids.push_back((f << l.timestamp_shift()) | low);
    }
    return ids;
}

const TimeCmp kCmps[] = {TimeCmp::AtOrAfter, TimeCmp::After, TimeCmp::AtOrBefore,
                         TimeCmp::Before};

// Checks every comparison for times t_us around field `center`.
void check_around(const Layout &l, int64_t center) {
    const std::vector<int64_t> ids = ids_around(l, center);
    const int64_t center_us = (l.epoch_ms + center) * 1000;
    for (int64_t dt : {-3001, -2000, -1999, -1001, -1000, -999, -1, 0, 1, 500, 999, 1000, 1001,
                       1999, 2000, 2001}) {
        const int64_t t_us = center_us + dt;
        for (TimeCmp cmp : kCmps) {
            int64_t bound = -42;
            const bool some = snowflake::id_bound(l, cmp, point_us(t_us), &bound);
            for (int64_t id : ids) {
                const bool expected = holds(l, id, cmp, t_us);
                const bool got = some && (lower_kind(cmp) ? id >= bound : id <= bound);
                ASSERT_EQ(got, expected) << "layout shift " << l.timestamp_shift() << " center "
                                         << center << " t_us " << t_us << " cmp "
                                         << static_cast<int>(cmp) << " id " << id;
            }
        }
    }
}

}  // namespace

TEST(TimeBounds, EveryComparisonSplitsTheIdsAroundMillisecondEdges) {
    for (const Layout &l : {make_layout(5, 5, 12), make_layout(3, 3, 16), make_layout(0, 0, 1),
                            make_layout(14, 13, 1, 1700000000000)}) {
        check_around(l, 1000);            // inside the lifetime
        check_around(l, 0);               // the epoch's own millisecond
        check_around(l, 1);
        // The last millisecond, where the test's microseconds fit in 64 bits
        // (not for 62 timestamp bits, which outlive every timestamp).
        if (l.lifetime_end_unix_ms() < INT64_MAX / 1000 - 10) {
            check_around(l, l.max_timestamp());
            check_around(l, l.max_timestamp() - 1);
        }
    }
}

TEST(TimeBounds, BeforeTheEpochNoIdIsEarlierAndEveryIdIsLater) {
    const Layout l = make_layout(5, 5, 12);
    const TimePoint t = point_us((l.epoch_ms - 5000) * 1000 + 123);
    int64_t b = -1;
    ASSERT_TRUE(snowflake::id_bound(l, TimeCmp::AtOrAfter, t, &b));
    EXPECT_EQ(b, 0);
    ASSERT_TRUE(snowflake::id_bound(l, TimeCmp::After, t, &b));
    EXPECT_EQ(b, 0);
    EXPECT_FALSE(snowflake::id_bound(l, TimeCmp::AtOrBefore, t, &b));
    EXPECT_FALSE(snowflake::id_bound(l, TimeCmp::Before, t, &b));
}

TEST(TimeBounds, PastTheLifetimeNoIdIsLaterAndEveryIdIsEarlier) {
    const Layout l = make_layout(5, 5, 12);
    const TimePoint t = point_us((l.lifetime_end_unix_ms() + 1) * 1000);
    int64_t b = -1;
    EXPECT_FALSE(snowflake::id_bound(l, TimeCmp::AtOrAfter, t, &b));
    EXPECT_FALSE(snowflake::id_bound(l, TimeCmp::After, t, &b));
    ASSERT_TRUE(snowflake::id_bound(l, TimeCmp::AtOrBefore, t, &b));
    EXPECT_EQ(b, INT64_MAX);
    ASSERT_TRUE(snowflake::id_bound(l, TimeCmp::Before, t, &b));
    EXPECT_EQ(b, INT64_MAX);
}

TEST(TimeBounds, ExtremeTimesDoNotOverflow) {
    // PostgreSQL's timestamp range in Unix ms, roughly: 4713 BC .. 294276 AD.
    const Layout l = make_layout(5, 5, 12);
    int64_t b = -1;
    EXPECT_TRUE(snowflake::id_bound(l, TimeCmp::AtOrAfter, TimePoint{-210866803200000, false}, &b));
    EXPECT_EQ(b, 0);
    EXPECT_TRUE(snowflake::id_bound(l, TimeCmp::Before, TimePoint{9224318015999999, true}, &b));
    EXPECT_EQ(b, INT64_MAX);
    const Layout wide = make_layout(0, 0, 1, 0);  // 62 timestamp bits: lives past year 294276
    EXPECT_TRUE(snowflake::id_bound(wide, TimeCmp::AtOrAfter, TimePoint{9224318015999999, true}, &b));
    EXPECT_EQ(b, int64_t{9224318016000000} << 1);
}

TEST(TimeBounds, RangesGiveTheIdsMadeWithinThem) {
    const Layout l = make_layout(5, 5, 12);
    const int64_t m = l.epoch_ms + 1000;  // some millisecond
    const RangeEnd open{true, false, {}};
    int64_t lo = -1, hi = -1;
    // [m, m + 1 ms): exactly the ids of millisecond m.
    ASSERT_TRUE(snowflake::ids_within(l, RangeEnd{false, true, {m, false}},
                                      RangeEnd{false, false, {m + 1, false}}, &lo, &hi));
    EXPECT_EQ(lo, int64_t{1000} << 22);
    EXPECT_EQ(hi, (int64_t{1001} << 22) - 1);
    // [m, m]: the same.
    ASSERT_TRUE(snowflake::ids_within(l, RangeEnd{false, true, {m, false}},
                                      RangeEnd{false, true, {m, false}}, &lo, &hi));
    EXPECT_EQ(hi, (int64_t{1001} << 22) - 1);
    // (m, m + 1 ms): none, there is no millisecond strictly between.
    EXPECT_FALSE(snowflake::ids_within(l, RangeEnd{false, false, {m, false}},
                                       RangeEnd{false, false, {m + 1, false}}, &lo, &hi));
    // [m + 0.1 ms, m + 0.9 ms]: none.
    EXPECT_FALSE(snowflake::ids_within(l, RangeEnd{false, true, {m, true}},
                                       RangeEnd{false, true, {m, true}}, &lo, &hi));
    // Unbounded on both sides: every id.
    ASSERT_TRUE(snowflake::ids_within(l, open, open, &lo, &hi));
    EXPECT_EQ(lo, 0);
    EXPECT_EQ(hi, INT64_MAX);
    // Entirely before the epoch, entirely past the lifetime: none.
    EXPECT_FALSE(snowflake::ids_within(l, open, RangeEnd{false, false, {l.epoch_ms, false}}, &lo,
                                       &hi));
    EXPECT_FALSE(snowflake::ids_within(
        l, RangeEnd{false, false, {l.lifetime_end_unix_ms(), false}}, open, &lo, &hi));
}
