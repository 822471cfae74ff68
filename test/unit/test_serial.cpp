// Unit tests of business serial numbers (src/core/serial).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <random>
#include <string>

#include "calendar.hpp"
#include "serial.hpp"
#include "layouts.hpp"

using snowflake_test::make_layout;
using namespace snowflake;

namespace {

const Layout kLayouts[] = {make_layout(5, 5, 12), make_layout(3, 3, 16), make_layout(0, 10, 12),
                           make_layout(10, 0, 8), make_layout(5, 5, 12, -1000000000000)};

std::string fmt(const Layout &l, int64_t id) {
    char buf[kMaxSerialWidth + 1];
    size_t n = 0;
    EXPECT_EQ(format_serial(l, id, buf, sizeof buf, &n), SerialError::None) << id;
    return std::string(buf, n);
}

SerialError parse(const Layout &l, const std::string &s, int64_t *out, size_t *pos = nullptr) {
    return parse_serial(l, s.data(), s.size(), out, pos);
}

// Largest timestamp field within the layout's lifetime and years <= 9999.
int64_t max_ts(const Layout &l) {
    return std::min<int64_t>(l.max_timestamp(), 253402300799999 - l.epoch_ms);
}

// Largest id whose serial can be formatted.
int64_t max_id(const Layout &l) {
    return (max_ts(l) << l.timestamp_shift()) | ((int64_t{1} << l.timestamp_shift()) - 1);
}

// A random id whose time lies in the layout's lifetime and in years <= 9999.
int64_t random_id(const Layout &l, std::mt19937_64 &rng) {
    const int64_t top = max_ts(l);
    const int64_t ts = static_cast<int64_t>(rng() % static_cast<uint64_t>(top + 1));
    const int64_t low = static_cast<int64_t>(rng() & ((uint64_t{1} << l.timestamp_shift()) - 1));
    return (ts << l.timestamp_shift()) | low;
}

const int64_t kRefId = 910499571847892992;
const Layout kDefault;

}  // namespace

TEST(SerialCivil, KnownDays) {
    EXPECT_EQ(days_from_civil(1970, 1, 1), 0);
    EXPECT_EQ(days_from_civil(1969, 12, 31), -1);
    EXPECT_EQ(days_from_civil(2000, 3, 1), 11017);
    EXPECT_EQ(days_from_civil(0, 1, 1), -719528);
    EXPECT_EQ(days_from_civil(10000, 1, 1), 2932897);
    // The literals serial.cpp uses for the 4-digit year range.
    EXPECT_EQ(days_from_civil(0, 1, 1) * 86400000, -62167219200000);
    EXPECT_EQ(days_from_civil(10000, 1, 1) * 86400000 - 1, 253402300799999);
}

TEST(SerialCivil, EveryDayOfYears0To9999RoundTrips) {
    int64_t prev_y = -1;
    int prev_m = 12, prev_d = 31;
    for (int64_t d = days_from_civil(0, 1, 1); d < days_from_civil(10000, 1, 1); ++d) {
        int64_t y;
        int m, dd;
        civil_from_days(d, &y, &m, &dd);
        ASSERT_EQ(days_from_civil(y, m, dd), d);
        // Consecutive days are consecutive dates.
        const bool next_day = y == prev_y && m == prev_m && dd == prev_d + 1;
        const bool next_month = y == prev_y && m == prev_m + 1 && dd == 1;
        const bool next_year = y == prev_y + 1 && m == 1 && dd == 1 && prev_m == 12 && prev_d == 31;
        ASSERT_TRUE(next_day || next_month || next_year) << y << "-" << m << "-" << dd;
        prev_y = y;
        prev_m = m;
        prev_d = dd;
    }
    EXPECT_EQ(prev_y, 9999);
}

TEST(SerialCivil, MatchesGmtime) {
    std::mt19937_64 rng(1);
    const int64_t lo = days_from_civil(0, 1, 1), hi = days_from_civil(10000, 1, 1);
    for (int i = 0; i < 100000; ++i) {
        const int64_t d = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo));
        const time_t t = static_cast<time_t>(d * 86400);
        struct tm tm;
        ASSERT_NE(gmtime_r(&t, &tm), nullptr);
        int64_t y;
        int m, dd;
        civil_from_days(d, &y, &m, &dd);
        ASSERT_EQ(y, tm.tm_year + 1900LL);
        ASSERT_EQ(m, tm.tm_mon + 1);
        ASSERT_EQ(dd, tm.tm_mday);
    }
}

TEST(SerialWidth, DecimalWidthForBits) {
    EXPECT_EQ(decimal_width_for_bits(0), 0u);
    EXPECT_EQ(decimal_width_for_bits(1), 1u);
    EXPECT_EQ(decimal_width_for_bits(3), 1u);   // 7
    EXPECT_EQ(decimal_width_for_bits(4), 2u);   // 15
    EXPECT_EQ(decimal_width_for_bits(5), 2u);   // 31
    EXPECT_EQ(decimal_width_for_bits(10), 4u);  // 1023
    EXPECT_EQ(decimal_width_for_bits(12), 4u);  // 4095
    EXPECT_EQ(decimal_width_for_bits(14), 5u);  // 16383
    EXPECT_EQ(decimal_width_for_bits(16), 5u);  // 65535
    EXPECT_EQ(decimal_width_for_bits(28), 9u);  // 268435455
}

TEST(SerialWidth, Layouts) {
    EXPECT_EQ(serial_width(make_layout(5, 5, 12)), 25u);
    EXPECT_EQ(serial_width(make_layout(3, 3, 16)), 24u);
    EXPECT_EQ(serial_width(make_layout(0, 10, 12)), 25u);
    EXPECT_EQ(serial_width(make_layout(10, 0, 8)), 24u);
    EXPECT_EQ(serial_width(make_layout(-1, 5, 12)), 0u);
    // The buffer bound holds for every valid layout.
    for (int dc = 0; dc <= 28; ++dc)
        for (int w = 0; dc + w <= 27; ++w)
            for (int s = 1; dc + w + s <= 28; ++s)
                ASSERT_LE(serial_width(make_layout(dc, w, s)), kMaxSerialWidth);
}

TEST(SerialFormat, ReferenceVector) {
    // 2017-09-20 13:43:08.849 UTC, dc 17, worker 25, sequence 0.
    EXPECT_EQ(fmt(kDefault, kRefId), "2017092013430884917250000");
    int64_t id = 0;
    ASSERT_EQ(parse(kDefault, "2017092013430884917250000", &id), SerialError::None);
    EXPECT_EQ(id, kRefId);
}

TEST(SerialFormat, KnownValues) {
    // Id 0 is the epoch itself: 2010-11-04 01:42:54.657 UTC.
    EXPECT_EQ(fmt(kDefault, 0), "2010110401425465700000000");
    // The last id of the default layout: all parts at their maximum.
    const int64_t last = (kDefault.max_timestamp() << 22) | ((int64_t{1} << 22) - 1);
    int64_t end_ms = kDefault.lifetime_end_unix_ms();
    EXPECT_EQ(end_ms, 1288834974657 + (int64_t{1} << 41) - 1);
    EXPECT_EQ(fmt(kDefault, last), "2080071017303020831314095");  // 2080-07-10 17:30:30.208
    // Zero-bit fields take no digits.
    EXPECT_EQ(fmt(make_layout(0, 10, 12), (int64_t{5} << 12) | 7), "2010110401425465700050007");
    EXPECT_EQ(fmt(make_layout(10, 0, 8), (int64_t{1023} << 8) | 255), "201011040142546571023255");
    // Before 1970: floor division of negative ms.
    EXPECT_EQ(fmt(make_layout(5, 5, 12, -1), 0), "1969123123595999900000000");
    EXPECT_EQ(fmt(make_layout(5, 5, 12, -86400000), int64_t{1} << 22),
              "1969123100000000100000000");
}

TEST(SerialFormat, NulOnlyWhenRoom) {
    char buf[64];
    std::memset(buf, 'x', sizeof buf);
    size_t n = 0;
    ASSERT_EQ(format_serial(kDefault, kRefId, buf, 25, &n), SerialError::None);
    EXPECT_EQ(n, 25u);
    EXPECT_EQ(buf[25], 'x');
    ASSERT_EQ(format_serial(kDefault, kRefId, buf, 26, &n), SerialError::None);
    EXPECT_EQ(buf[25], '\0');
}

TEST(SerialFormat, Errors) {
    char buf[64];
    size_t n = 77;
    EXPECT_EQ(format_serial(kDefault, -1, buf, sizeof buf, &n), SerialError::NegativeId);
    EXPECT_EQ(format_serial(kDefault, INT64_MIN, buf, sizeof buf, &n), SerialError::NegativeId);
    EXPECT_EQ(format_serial(kDefault, 0, buf, 24, &n), SerialError::BufferTooSmall);
    EXPECT_EQ(format_serial(make_layout(5, 5, 0), 0, buf, sizeof buf, &n),
              SerialError::InvalidLayout);
    EXPECT_EQ(format_serial(make_layout(10, 10, 10), 0, buf, sizeof buf, &n),
              SerialError::InvalidLayout);
    EXPECT_EQ(n, 77u);
}

TEST(SerialFormat, YearOutOfRange) {
    char buf[64];
    size_t n = 0;
    // 62 timestamp bits reach ~146 million years past the epoch.
    const Layout wide = make_layout(0, 0, 1);
    EXPECT_EQ(format_serial(wide, INT64_MAX, buf, sizeof buf, &n), SerialError::YearOutOfRange);
    // The exact boundary: 9999-12-31 23:59:59.999 formats, one ms later does not.
    const int64_t last_ms = 253402300799999;
    const int64_t ok_id = (last_ms - kTwitterEpochMs) << 1;
    EXPECT_EQ(fmt(wide, ok_id | 1), "999912312359599991");
    EXPECT_EQ(format_serial(wide, (ok_id + 2) | 1, buf, sizeof buf, &n),
              SerialError::YearOutOfRange);
    // And at the bottom: 0000-01-01 00:00:00.000.
    const int64_t first_ms = -62167219200000;
    EXPECT_EQ(fmt(make_layout(5, 5, 12, first_ms), 0), "0000010100000000000000000");
    EXPECT_EQ(format_serial(make_layout(5, 5, 12, first_ms - 1), 0, buf, sizeof buf, &n),
              SerialError::YearOutOfRange);
    int64_t id = -1;
    ASSERT_EQ(parse(make_layout(5, 5, 12, first_ms), "0000010100000000000000000", &id),
              SerialError::None);
    EXPECT_EQ(id, 0);
    // An epoch so large that epoch + timestamp would overflow int64.
    EXPECT_EQ(format_serial(make_layout(0, 0, 1, INT64_MAX - 5), INT64_MAX, buf, sizeof buf, &n),
              SerialError::YearOutOfRange);
}

TEST(SerialRoundTrip, RandomIdsSeveralLayouts) {
    std::mt19937_64 rng(99);
    for (const Layout &l : kLayouts) {
        const size_t w = serial_width(l);
        for (int i = 0; i < 100000; ++i) {
            const int64_t id = random_id(l, rng);
            const std::string s = fmt(l, id);
            ASSERT_EQ(s.size(), w);
            int64_t back = -1;
            size_t pos = 99;
            ASSERT_EQ(parse(l, s, &back, &pos), SerialError::None) << s;
            ASSERT_EQ(back, id) << s;
            ASSERT_EQ(pos, 0u);
        }
    }
}

TEST(SerialRoundTrip, WideLayoutUpToYear9999) {
    std::mt19937_64 rng(5);
    const Layout l = make_layout(2, 3, 4);  // 54 timestamp bits, runs past 9999
    for (int i = 0; i < 20000; ++i) {
        const int64_t id = random_id(l, rng);
        int64_t back = -1;
        ASSERT_EQ(parse(l, fmt(l, id), &back), SerialError::None);
        ASSERT_EQ(back, id);
    }
}

TEST(SerialRoundTrip, SortOrderMatchesIds) {
    std::mt19937_64 rng(3);
    for (const Layout &l : kLayouts) {
        for (int i = 0; i < 50000; ++i) {
            const int64_t a = random_id(l, rng);
            int64_t b = random_id(l, rng);
            if (i & 1)  // nearby ids: same or adjacent milliseconds
                b = std::max<int64_t>(0, std::min(max_id(l) - (1 << 22), a) +
                                             static_cast<int64_t>(rng() % (1u << 23)) - (1 << 22));
            const int c = fmt(l, a).compare(fmt(l, b));
            ASSERT_EQ(c < 0, a < b) << a << " " << b;
            ASSERT_EQ(c == 0, a == b) << a << " " << b;
        }
    }
}

TEST(SerialParse, WrongLength) {
    int64_t id;
    size_t pos = 9;
    EXPECT_EQ(parse(kDefault, "", &id, &pos), SerialError::WrongLength);
    EXPECT_EQ(pos, 0u);
    EXPECT_EQ(parse(kDefault, "201709201343088491725000", &id), SerialError::WrongLength);
    EXPECT_EQ(parse(kDefault, "20170920134308849172500000", &id), SerialError::WrongLength);
    // Valid under 3/3/16 (24 digits) but not under the default layout.
    EXPECT_EQ(parse(make_layout(3, 3, 16), "201709201343088491700000", &id), SerialError::None);
}

TEST(SerialParse, BadCharacter) {
    int64_t id;
    size_t pos = 0;
    EXPECT_EQ(parse(kDefault, "2017-092013430884917250000", &id, &pos), SerialError::BadCharacter);
    EXPECT_EQ(pos, 5u);
    EXPECT_EQ(parse(kDefault, "201709201343088491725000x", &id, &pos), SerialError::BadCharacter);
    EXPECT_EQ(pos, 25u);
    EXPECT_EQ(parse(kDefault, " 2017092013430884917250000", &id, &pos),
              SerialError::BadCharacter);
    EXPECT_EQ(pos, 1u);
    EXPECT_EQ(parse(kDefault, "20170920134308849172500\xC3\xA9", &id, &pos),
              SerialError::BadCharacter);
    EXPECT_EQ(pos, 24u);
    // Bad characters are reported even when the length is also wrong.
    EXPECT_EQ(parse(kDefault, "2017x", &id, &pos), SerialError::BadCharacter);
    EXPECT_EQ(pos, 5u);
    EXPECT_EQ(parse(kDefault, "2017x", &id, nullptr), SerialError::BadCharacter);
}

namespace {
// Replaces the 17 time digits of the reference serial.
std::string with_time(const char *t17) { return std::string(t17) + "17250000"; }

void expect_invalid_date(const char *t17, size_t want_pos) {
    int64_t id = 0;
    size_t pos = 0;
    EXPECT_EQ(parse(kDefault, with_time(t17), &id, &pos), SerialError::InvalidDate) << t17;
    EXPECT_EQ(pos, want_pos) << t17;
}

void expect_valid_date(const char *t17) {
    const Layout unix_epoch = make_layout(5, 5, 12, 0);  // so year 2000 is in range
    int64_t id = 0;
    EXPECT_EQ(parse(unix_epoch, with_time(t17), &id), SerialError::None) << t17;
    EXPECT_EQ(fmt(unix_epoch, id), with_time(t17));
}
}  // namespace

TEST(SerialParse, InvalidDate) {
    expect_invalid_date("20170020134308849", 5);  // month 00
    expect_invalid_date("20171320134308849", 5);  // month 13
    expect_invalid_date("20170900134308849", 7);  // day 00
    expect_invalid_date("20170132134308849", 7);  // Jan 32
    expect_invalid_date("20170431134308849", 7);  // Apr 31
    expect_invalid_date("20170229134308849", 7);  // Feb 29, 2017 is not a leap year
    expect_invalid_date("21000229000000000", 7);  // 2100: divisible by 100, not 400
    expect_invalid_date("20170920244308849", 9);  // hour 24
    expect_invalid_date("20170920136008849", 11);  // minute 60
    expect_invalid_date("20170920134360849", 13);  // second 60: no leap seconds
    expect_invalid_date("20170920999999999", 9);   // first bad field wins
}

TEST(SerialParse, ValidCalendarEdges) {
    expect_valid_date("20160229000000000");  // leap year
    expect_valid_date("20000229235959999");  // divisible by 400
    expect_valid_date("20171231235959999");
    expect_valid_date("20170131000000000");
    expect_valid_date("20170430120000000");
    expect_valid_date("19700101000000000");  // the Unix epoch itself
}

TEST(SerialParse, PartOutOfRange) {
    int64_t id;
    size_t pos = 0;
    EXPECT_EQ(parse(kDefault, "2017092013430884932250000", &id, &pos),
              SerialError::PartOutOfRange);  // datacenter 32
    EXPECT_EQ(pos, 18u);
    EXPECT_EQ(parse(kDefault, "2017092013430884917320000", &id, &pos),
              SerialError::PartOutOfRange);  // worker 32
    EXPECT_EQ(pos, 20u);
    EXPECT_EQ(parse(kDefault, "2017092013430884917254096", &id, &pos),
              SerialError::PartOutOfRange);  // sequence 4096
    EXPECT_EQ(pos, 22u);
    EXPECT_EQ(parse(kDefault, "2017092013430884931314095", &id, &pos), SerialError::None);
    const Layout narrow = make_layout(3, 3, 16);
    EXPECT_EQ(parse(narrow, "201709201343088498065535", &id, &pos), SerialError::PartOutOfRange);
    EXPECT_EQ(pos, 18u);  // datacenter 8 > 7
    EXPECT_EQ(parse(narrow, "201709201343088497765536", &id, &pos), SerialError::PartOutOfRange);
    EXPECT_EQ(pos, 20u);  // sequence 65536 > 65535
    EXPECT_EQ(parse(make_layout(10, 0, 8), "201709201343088491024000", &id, &pos),
              SerialError::PartOutOfRange);
    EXPECT_EQ(pos, 18u);  // datacenter 1024 > 1023
}

TEST(SerialParse, EpochAndLifetime) {
    int64_t id = -1;
    size_t pos = 9;
    // The epoch's millisecond is the first valid one.
    EXPECT_EQ(parse(kDefault, "2010110401425465700000000", &id, &pos), SerialError::None);
    EXPECT_EQ(id, 0);
    EXPECT_EQ(parse(kDefault, "2010110401425465600000000", &id, &pos), SerialError::BeforeEpoch);
    EXPECT_EQ(pos, 0u);
    EXPECT_EQ(parse(kDefault, "0000010100000000000000000", &id), SerialError::BeforeEpoch);
    // The last millisecond of the lifetime (2080-07-10 17:30:30.208) and one after.
    EXPECT_EQ(parse(kDefault, "2080071017303020800000000", &id), SerialError::None);
    EXPECT_EQ(parse(kDefault, "2080071017303020900000000", &id, &pos), SerialError::PastLifetime);
    EXPECT_EQ(pos, 0u);
    EXPECT_EQ(parse(kDefault, "9999123123595999900000000", &id), SerialError::PastLifetime);
    // An absurdly negative epoch: no signed overflow in the lifetime check.
    EXPECT_EQ(parse(make_layout(5, 5, 12, INT64_MIN), "9999123123595999900000000", &id),
              SerialError::PastLifetime);
}

TEST(SerialParse, InvalidLayout) {
    int64_t id;
    EXPECT_EQ(parse(make_layout(-1, 5, 12), "2017092013430884917250000", &id),
              SerialError::InvalidLayout);
}

TEST(SerialErrorText, EveryCodeHasLowercaseText) {
    for (SerialError e :
         {SerialError::None, SerialError::InvalidLayout, SerialError::NegativeId,
          SerialError::BufferTooSmall, SerialError::YearOutOfRange, SerialError::WrongLength,
          SerialError::BadCharacter, SerialError::InvalidDate, SerialError::PartOutOfRange,
          SerialError::BeforeEpoch, SerialError::PastLifetime}) {
        const char *t = serial_error_text(e);
        ASSERT_NE(t, nullptr);
        EXPECT_TRUE(t[0] >= 'a' && t[0] <= 'z') << t;
    }
}
