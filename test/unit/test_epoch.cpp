// Unit tests of the epoch setting parser and the strict integer parser
// (calendar helpers are tested in test_serial.cpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "epoch.hpp"

namespace {

constexpr int64_t kDayMs = 86400000;

bool epoch(const std::string &s, int64_t *out) {
    return snowflake::parse_epoch(s.data(), s.size(), out);
}

int64_t epoch_ok(const std::string &s) {
    int64_t v = -424242;
    EXPECT_TRUE(epoch(s, &v)) << "'" << s << "' should parse";
    return v;
}

bool parse_i64(const std::string &s, int64_t *out) {
    return snowflake::parse_int64(s.data(), s.size(), out);
}

}  // namespace

// ---- parse_epoch ------------------------------------------------------------

TEST(ParseEpoch, AcceptsIntegerMs) {
    EXPECT_EQ(epoch_ok("1288834974657"), 1288834974657);
    EXPECT_EQ(epoch_ok("0"), 0);
    EXPECT_EQ(epoch_ok("1"), 1);
    EXPECT_EQ(epoch_ok("9223372036854775807"), INT64_MAX);
}

TEST(ParseEpoch, NegativeIntegerIsParsedAndLeftToTheCallersRangeCheck) {
    EXPECT_EQ(epoch_ok("-1000"), -1000);
}

TEST(ParseEpoch, IgnoresLeadingAndTrailingBlanks) {
    EXPECT_EQ(epoch_ok("  1288834974657  "), 1288834974657);
    EXPECT_EQ(epoch_ok("\t1288834974657\t"), 1288834974657);
    EXPECT_EQ(epoch_ok(" 2010-11-04 01:42:54.657 "), 1288834974657);
}

TEST(ParseEpoch, AcceptsIsoDateAlone) {
    EXPECT_EQ(epoch_ok("1970-01-01"), 0);
    EXPECT_EQ(epoch_ok("2000-03-01"), 11017 * kDayMs);
    EXPECT_EQ(epoch_ok("2020-02-29"), epoch_ok("2020-02-28") + kDayMs);
    EXPECT_EQ(epoch_ok("1969-12-31"), -kDayMs);
}

TEST(ParseEpoch, AcceptsIsoDateWithTime) {
    EXPECT_EQ(epoch_ok("2010-11-04 01:42:54"), 1288834974000);
    EXPECT_EQ(epoch_ok("2010-11-04T01:42:54"), 1288834974000);
    EXPECT_EQ(epoch_ok("2010-11-04t01:42:54"), 1288834974000);
    EXPECT_EQ(epoch_ok("2010-11-04 01:42"), 1288834920000);
    EXPECT_EQ(epoch_ok("2017-09-20 13:43:08.849"), 1505914988849);
    EXPECT_EQ(epoch_ok("1970-01-01 00:00:00"), 0);
    EXPECT_EQ(epoch_ok("1970-01-01 23:59:59.999"), kDayMs - 1);
}

TEST(ParseEpoch, TwitterEpochAsTimestampEqualsTheInteger) {
    EXPECT_EQ(epoch_ok("2010-11-04 01:42:54.657"), 1288834974657);
    EXPECT_EQ(epoch_ok("2010-11-04T01:42:54.657Z"), 1288834974657);
}

TEST(ParseEpoch, FractionalMsUpToThreeDigits) {
    EXPECT_EQ(epoch_ok("1970-01-01 00:00:00.5"), 500);
    EXPECT_EQ(epoch_ok("1970-01-01 00:00:00.05"), 50);
    EXPECT_EQ(epoch_ok("1970-01-01 00:00:00.007"), 7);
    EXPECT_EQ(epoch_ok("1970-01-01 00:00:00.000"), 0);
    int64_t v;
    EXPECT_FALSE(epoch("1970-01-01 00:00:00.1234", &v)) << "sub-ms digits are refused";
    EXPECT_FALSE(epoch("1970-01-01 00:00:00.", &v));
    EXPECT_FALSE(epoch("1970-01-01 00:00:00.x", &v));
}

TEST(ParseEpoch, ZoneSuffixes) {
    const int64_t utc = 1288834974657;
    EXPECT_EQ(epoch_ok("2010-11-04T01:42:54.657Z"), utc);
    EXPECT_EQ(epoch_ok("2010-11-04T01:42:54.657z"), utc);
    EXPECT_EQ(epoch_ok("2010-11-04 01:42:54.657 UTC"), utc);
    EXPECT_EQ(epoch_ok("2010-11-04T01:42:54.657UTC"), utc);
    EXPECT_EQ(epoch_ok("2010-11-04T02:42:54.657+01:00"), utc);
    EXPECT_EQ(epoch_ok("2010-11-04T02:42:54.657+0100"), utc);
    EXPECT_EQ(epoch_ok("2010-11-04T02:42:54.657+01"), utc);
    EXPECT_EQ(epoch_ok("2010-11-03T20:42:54.657-05:00"), utc);
    EXPECT_EQ(epoch_ok("2010-11-04T07:12:54.657+05:30"), utc);
    EXPECT_EQ(epoch_ok("2010-11-04 02:42:54.657 +01:00"), utc);
    EXPECT_EQ(epoch_ok("2010-11-04T01:42:54.657+00:00"), utc);
    EXPECT_EQ(epoch_ok("2010-11-04T01:42:54.657-00:00"), utc);
    // An offset on a bare date.
    EXPECT_EQ(epoch_ok("1970-01-02+01:00"), kDayMs - 3600000);
    EXPECT_EQ(epoch_ok("1970-01-01Z"), 0);
}

TEST(ParseEpoch, RefusesBadZoneSuffixes) {
    int64_t v;
    for (const char *s : {"2010-11-04T01:42:54+16:00", "2010-11-04T01:42:54+05:60",
                          "2010-11-04T01:42:54+5", "2010-11-04T01:42:54+05:3",
                          "2010-11-04T01:42:54+", "2010-11-04T01:42:54 PST",
                          "2010-11-04T01:42:54ZZ", "2010-11-04T01:42:54+01:00:00",
                          "2010-11-04T01:42:54 +01:00 "}) {
        // (the last one only has a trailing blank: accepted; checked below)
        if (std::strcmp(s, "2010-11-04T01:42:54 +01:00 ") == 0) {
            EXPECT_TRUE(epoch(s, &v)) << s;
            continue;
        }
        EXPECT_FALSE(epoch(s, &v)) << s;
    }
}

TEST(ParseEpoch, RefusesGarbage) {
    int64_t v = 31337;
    for (const char *s :
         {"abc", "2020-13-01", "2020-02-30", "", "  ", "\t", "12x", "2020-01-01 25:00:00",
          "2020-00-10", "2020-01-00", "2019-02-29", "2100-02-29", "2020-04-31",
          "2020-01-01 23:60:00", "2020-01-01 23:59:60", "2020-01-01 1:00:00", "2020-1-01",
          "20-01-01", "2020/01/01", "2020-01-01 10", "2020-01-01 10:00:", "2020-01-01T",
          "2020-01-01  10:00:00", "+1", "-", "--1", "1-2", "1 2", "0x10", "1e3", "1.5",
          "99999999999999999999", "-9223372036854775809", "2020-01-01 10:00:00 junk",
          "2020-01-01junk"}) {
        EXPECT_FALSE(epoch(s, &v)) << "'" << s << "'";
    }
    EXPECT_EQ(v, 31337) << "a refused epoch leaves the output alone";
}

TEST(ParseEpoch, DoesNotReadPastTheGivenLength) {
    const char buf[] = "1288834974657999";
    int64_t v = 0;
    ASSERT_TRUE(snowflake::parse_epoch(buf, 13, &v));
    EXPECT_EQ(v, 1288834974657);
    const char ts[] = "2010-11-04 01:42:54.657Zgarbage";
    ASSERT_TRUE(snowflake::parse_epoch(ts, 24, &v));
    EXPECT_EQ(v, 1288834974657);
}

TEST(ParseEpoch, LeapYearsFollowTheGregorianRules) {
    int64_t v;
    EXPECT_TRUE(epoch("2000-02-29", &v));
    EXPECT_TRUE(epoch("2024-02-29", &v));
    EXPECT_TRUE(epoch("1600-02-29", &v));
    EXPECT_FALSE(epoch("1900-02-29", &v));
    EXPECT_FALSE(epoch("2023-02-29", &v));
    EXPECT_EQ(epoch_ok("2000-03-01") - epoch_ok("2000-02-28"), 2 * kDayMs);
    EXPECT_EQ(epoch_ok("1900-03-01") - epoch_ok("1900-02-28"), kDayMs);
}

// ---- parse_int64 --------------------------------------------------------------

TEST(ParseInt64, AcceptsPlainDecimalsAndTheExtremes) {
    int64_t v = 0;
    EXPECT_TRUE(parse_i64("0", &v));
    EXPECT_EQ(v, 0);
    EXPECT_TRUE(parse_i64("-0", &v));
    EXPECT_EQ(v, 0);
    EXPECT_TRUE(parse_i64("007", &v));
    EXPECT_EQ(v, 7);
    EXPECT_TRUE(parse_i64("-42", &v));
    EXPECT_EQ(v, -42);
    EXPECT_TRUE(parse_i64("9223372036854775807", &v));
    EXPECT_EQ(v, INT64_MAX);
    EXPECT_TRUE(parse_i64("-9223372036854775808", &v));
    EXPECT_EQ(v, INT64_MIN);
    EXPECT_TRUE(parse_i64("9223372036854775806", &v));
    EXPECT_EQ(v, INT64_MAX - 1);
    EXPECT_TRUE(parse_i64("-9223372036854775807", &v));
    EXPECT_EQ(v, INT64_MIN + 1);
}

TEST(ParseInt64, RefusesOverflowByOne) {
    int64_t v = 5;
    EXPECT_FALSE(parse_i64("9223372036854775808", &v));
    EXPECT_FALSE(parse_i64("-9223372036854775809", &v));
    EXPECT_FALSE(parse_i64("92233720368547758070", &v));
    EXPECT_FALSE(parse_i64("18446744073709551616", &v));
    EXPECT_FALSE(parse_i64("99999999999999999999999999", &v));
    EXPECT_EQ(v, 5);
}

TEST(ParseInt64, RefusesSignsSpacesAndEmpty) {
    int64_t v = 5;
    for (const char *s : {"", "-", "+1", "+", " 1", "1 ", "1-", "--1", "-+1", "1.0", "0x1", "1e2",
                          "abc", "١"}) {
        EXPECT_FALSE(parse_i64(s, &v)) << "'" << s << "'";
    }
    EXPECT_EQ(v, 5);
}

TEST(ParseInt64, ReadsOnlyTheGivenLength) {
    int64_t v = 0;
    EXPECT_TRUE(snowflake::parse_int64("123456", 3, &v));
    EXPECT_EQ(v, 123);
    EXPECT_FALSE(snowflake::parse_int64("123", 0, &v));
}

TEST(ParseInt64, RoundTripsEveryPowerOfTenBoundary) {
    int64_t p = 1;
    for (int i = 0; i < 19; i++) {
        for (int64_t x : {p - 1, p, p + 1, -p, -(p - 1), -(p + 1)}) {
            const std::string s = std::to_string(x);
            int64_t v = 0;
            ASSERT_TRUE(parse_i64(s, &v)) << s;
            ASSERT_EQ(v, x);
        }
        if (i < 18)
            p *= 10;
    }
}

