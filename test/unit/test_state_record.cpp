// Unit tests of the state file's text format and the configuration change
// rules (src/core/state_record.*).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "layout.hpp"
#include "state_record.hpp"

using snowflake::Layout;
using snowflake::RecordError;
using snowflake::StateRecord;

namespace {

StateRecord sample() {
    StateRecord r;
    r.mark_unix_ms = 1505914988849;
    r.layout.epoch_ms = 1288834974657;
    r.layout.datacenter_bits = 5;
    r.layout.worker_bits = 5;
    r.layout.sequence_bits = 12;
    r.datacenter_id = 17;
    r.worker_id = 25;
    r.history.since_unix_ms = 1505000000000;
    r.history.retired = snowflake::NodePair{17, 24};
    r.history.retired_until_unix_ms = 1504999999999;
    r.history.complete = false;
    return r;
}

// The sample as a 1.4 build wrote it (no history).
StateRecord sample_before_history() {
    StateRecord r = sample();
    r.history = snowflake::history_before_records(r.mark_unix_ms);
    return r;
}

std::string format(const StateRecord &r) {
    char buf[snowflake::kStateRecordMaxLen];
    const size_t n = snowflake::format_state_record(r, buf, sizeof buf);
    EXPECT_GT(n, 0u);
    EXPECT_EQ(std::strlen(buf), n);
    return std::string(buf, n);
}

RecordError parse(const std::string &s, StateRecord *out) {
    return snowflake::parse_state_record(s.data(), s.size(), out);
}

bool same(const StateRecord &a, const StateRecord &b) {
    return a.mark_unix_ms == b.mark_unix_ms && a.layout == b.layout &&
           a.datacenter_id == b.datacenter_id && a.worker_id == b.worker_id &&
           std::strcmp(a.registry_node_key, b.registry_node_key) == 0 && a.history == b.history;
}

// The seven history lines of a version 3 file, for the sample's history.
const char *const kSampleHistory =
    "identity_since_unix_ms 1505000000000\n"
    "identity_not_before_unix_ms -1\n"
    "retired_datacenter_id 17\n"
    "retired_worker_id 24\n"
    "retired_since_unix_ms -1\n"
    "retired_until_unix_ms 1504999999999\n"
    "identities_complete 0\n";

// The sample as a registry claim of node key `key`.
StateRecord claimed_sample(const char *key = "7312345678901234567:db-1.example.com:5432") {
    StateRecord r = sample();
    snprintf(r.registry_node_key, sizeof r.registry_node_key, "%s", key);
    return r;
}

// Builds a file with the given body lines and a correct checksum.
std::string with_crc(const std::string &body) {
    char crc[32];
    snprintf(crc, sizeof crc, "crc32 %08x\n", snowflake::crc32(body.data(), body.size()));
    return body + crc;
}

}  // namespace

TEST(StateRecord, Crc32MatchesZlib) {
    EXPECT_EQ(snowflake::crc32("123456789", 9), 0xCBF43926u);
    EXPECT_EQ(snowflake::crc32("", 0), 0u);
    EXPECT_EQ(snowflake::crc32("a", 1), 0xE8B7BE43u);
}

TEST(StateRecord, FormatIsTheDocumentedText) {
    const std::string body = std::string(
                                 "snowflake-state 3\n"
                                 "mark_unix_ms 1505914988849\n"
                                 "epoch_ms 1288834974657\n"
                                 "datacenter_bits 5\n"
                                 "worker_bits 5\n"
                                 "sequence_bits 12\n"
                                 "datacenter_id 17\n"
                                 "worker_id 25\n") +
                             kSampleHistory;
    EXPECT_EQ(format(sample()), with_crc(body));
}

TEST(StateRecord, FormatParseRoundTrips) {
    std::vector<StateRecord> records;
    records.push_back(sample());
    records.push_back(StateRecord{});  // defaults: no mark, worker unset
    StateRecord extreme = sample();
    extreme.mark_unix_ms = INT64_MAX;
    extreme.layout.epoch_ms = INT64_MIN;
    extreme.layout.datacenter_bits = 0;
    extreme.layout.worker_bits = 0;
    extreme.layout.sequence_bits = 28;
    extreme.datacenter_id = 0;
    extreme.worker_id = 0;
    records.push_back(extreme);
    StateRecord negative = sample();
    negative.mark_unix_ms = INT64_MIN;
    negative.layout.epoch_ms = -1;
    negative.layout.datacenter_bits = 14;
    negative.layout.worker_bits = 13;
    negative.layout.sequence_bits = 1;
    negative.datacenter_id = 16383;
    negative.worker_id = 8191;
    records.push_back(negative);
    for (const StateRecord &r : records) {
        const std::string text = format(r);
        ASSERT_LT(text.size(), snowflake::kStateRecordMaxLen);
        StateRecord back;
        back.mark_unix_ms = 99;
        ASSERT_EQ(parse(text, &back), RecordError::None) << text;
        EXPECT_TRUE(same(back, r)) << text;
    }
}

TEST(StateRecord, FormatRefusesATooSmallBufferWithoutOverrunningIt) {
    const StateRecord r = sample();
    const std::string full = format(r);
    for (size_t buflen = 1; buflen <= full.size(); buflen++) {
        std::vector<char> buf(buflen + 16, '#');
        EXPECT_EQ(snowflake::format_state_record(r, buf.data(), buflen), 0u) << buflen;
        for (size_t i = buflen; i < buf.size(); i++)
            ASSERT_EQ(buf[i], '#') << "wrote past buflen " << buflen;
    }
    std::vector<char> buf(full.size() + 1);
    EXPECT_EQ(snowflake::format_state_record(r, buf.data(), buf.size()), full.size());
}

TEST(StateRecord, EverySingleByteCorruptionIsDetected) {
    const StateRecord r = sample();
    const std::string text = format(r);
    long tried = 0;
    for (size_t i = 0; i < text.size(); i++) {
        for (int b = 0; b < 256; b++) {
            if (static_cast<unsigned char>(text[i]) == b)
                continue;
            std::string bad = text;
            bad[i] = static_cast<char>(b);
            StateRecord out = r;
            const RecordError e = parse(bad, &out);
            tried++;
            ASSERT_NE(e, RecordError::None)
                << "byte " << i << " ('" << text[i] << "') set to " << b << " went unnoticed";
            ASSERT_TRUE(e == RecordError::BadHeader || e == RecordError::BadLine ||
                        e == RecordError::BadChecksum || e == RecordError::BadLayout);
        }
    }
    EXPECT_EQ(tried, static_cast<long>(text.size()) * 255);
}

TEST(StateRecord, EveryBitFlipIsDetected) {
    const std::string text = format(sample());
    for (size_t i = 0; i < text.size(); i++) {
        for (int bit = 0; bit < 8; bit++) {
            std::string bad = text;
            bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
            StateRecord out;
            ASSERT_NE(parse(bad, &out), RecordError::None) << i << ":" << bit;
        }
    }
}

TEST(StateRecord, HeaderCorruptionIsBadHeader) {
    const std::string text = format(sample());
    StateRecord out;
    std::string bad = text;
    bad[0] = 'S';
    EXPECT_EQ(parse(bad, &out), RecordError::BadHeader);
    bad = text;
    bad[16] = '4';  // "snowflake-state 4": an unknown version
    EXPECT_EQ(parse(bad, &out), RecordError::BadHeader);
    bad[16] = '0';
    EXPECT_EQ(parse(bad, &out), RecordError::BadHeader);
    EXPECT_EQ(parse("", &out), RecordError::BadHeader);
    EXPECT_EQ(parse("snowflake-state 1", &out), RecordError::BadHeader);
}

TEST(StateRecord, ValueCorruptionIsBadChecksum) {
    std::string text = format(sample());
    const size_t pos = text.find("1505914988849");
    ASSERT_NE(pos, std::string::npos);
    text[pos + 12] = '8';  // still a number, different mark
    StateRecord out;
    EXPECT_EQ(parse(text, &out), RecordError::BadChecksum);
}

TEST(StateRecord, UppercaseChecksumIsRefused) {
    // The file is always written in lower case; another spelling is not ours.
    StateRecord r = sample();
    std::string text;
    size_t pos = 0;
    for (;; r.mark_unix_ms++) {  // find a record whose checksum has a hex letter
        text = format(r);
        pos = text.find("crc32 ") + 6;
        if (text.find_first_of("abcdef", pos) < pos + 8)
            break;
    }
    StateRecord out;
    ASSERT_EQ(parse(text, &out), RecordError::None);
    for (size_t i = pos; i < pos + 8; i++)
        if (text[i] >= 'a' && text[i] <= 'f')
            text[i] = static_cast<char>(text[i] - 'a' + 'A');
    EXPECT_EQ(parse(text, &out), RecordError::BadChecksum);
}

TEST(StateRecord, EveryTruncationIsRefused) {
    const std::string text = format(sample());
    for (size_t n = 0; n < text.size(); n++) {
        StateRecord out;
        const RecordError e = parse(text.substr(0, n), &out);
        ASSERT_NE(e, RecordError::None) << "truncated to " << n;
        if (n >= 18) {  // the header line is complete
            ASSERT_EQ(e, RecordError::BadLine) << "truncated to " << n;
        }
    }
}

TEST(StateRecord, ExtraTrailingDataIsRefused) {
    const std::string text = format(sample());
    StateRecord out;
    for (const char *extra : {"\n", " ", "x", "crc32 00000000\n", "\0"}) {
        std::string bad = text + std::string(extra, std::strlen(extra) ? std::strlen(extra) : 1);
        EXPECT_EQ(parse(bad, &out), RecordError::BadLine) << "'" << extra << "'";
    }
    EXPECT_EQ(parse(text + text, &out), RecordError::BadLine);
}

TEST(StateRecord, MisnamedOrReorderedLinesAreBadLine) {
    StateRecord out;
    const std::string ok_body =
        "snowflake-state 1\nmark_unix_ms 1\nepoch_ms 2\ndatacenter_bits 5\nworker_bits 5\n"
        "sequence_bits 12\ndatacenter_id 1\nworker_id 1\n";
    ASSERT_EQ(parse(with_crc(ok_body), &out), RecordError::None);
    EXPECT_EQ(out.mark_unix_ms, 1);
    EXPECT_EQ(out.layout.epoch_ms, 2);
    // Swapped lines.
    EXPECT_EQ(parse(with_crc("snowflake-state 1\nepoch_ms 2\nmark_unix_ms 1\ndatacenter_bits "
                             "5\nworker_bits 5\nsequence_bits 12\ndatacenter_id 1\nworker_id 1\n"),
                    &out),
              RecordError::BadLine);
    // Not a number, a space too many, a plus sign, a missing value.
    for (const char *v : {"x", " 1", "1 ", "+1", "", "1.0"}) {
        const std::string body = "snowflake-state 1\nmark_unix_ms " + std::string(v) +
                                 "\nepoch_ms 2\ndatacenter_bits 5\nworker_bits 5\nsequence_bits "
                                 "12\ndatacenter_id 1\nworker_id 1\n";
        EXPECT_EQ(parse(with_crc(body), &out), RecordError::BadLine) << "'" << v << "'";
    }
    // A missing line.
    EXPECT_EQ(parse(with_crc("snowflake-state 1\nmark_unix_ms 1\nepoch_ms 2\ndatacenter_bits "
                             "5\nworker_bits 5\nsequence_bits 12\ndatacenter_id 1\n"),
                    &out),
              RecordError::BadLine);
    // CRLF line ends are not ours.
    std::string crlf = with_crc(ok_body);
    for (size_t p = crlf.find('\n'); p != std::string::npos; p = crlf.find('\n', p + 2))
        crlf.insert(p, "\r");
    EXPECT_NE(parse(crlf, &out), RecordError::None);
}

TEST(StateRecord, InvalidRecordedLayoutIsBadLayout) {
    StateRecord out;
    StateRecord r = sample();
    r.layout.datacenter_bits = 10;
    r.layout.worker_bits = 10;
    r.layout.sequence_bits = 10;  // 30 > 28
    EXPECT_EQ(parse(format(r), &out), RecordError::BadLayout);
    r = sample();
    r.layout.sequence_bits = 0;
    EXPECT_EQ(parse(format(r), &out), RecordError::BadLayout);
    r = sample();
    r.layout.worker_bits = -1;
    EXPECT_EQ(parse(format(r), &out), RecordError::BadLayout);
    // A width that does not fit an int must not be truncated into a valid one.
    const std::string body =
        "snowflake-state 1\nmark_unix_ms 1\nepoch_ms 2\ndatacenter_bits 4294967301\n"
        "worker_bits 5\nsequence_bits 12\ndatacenter_id 1\nworker_id 1\n";
    EXPECT_EQ(parse(with_crc(body), &out), RecordError::BadLayout);
}

// ---- version 2: a registry claim ----------------------------------------------------

TEST(StateRecordClaim, AVersion1FileAlreadyWrittenIsAConfiguredIdentity) {
    // Byte for byte what earlier releases wrote: still read, and never a claim.
    const std::string v1 = with_crc(
        "snowflake-state 1\nmark_unix_ms 1505914988849\nepoch_ms 1288834974657\n"
        "datacenter_bits 5\nworker_bits 5\nsequence_bits 12\ndatacenter_id 17\nworker_id 25\n");
    StateRecord out = claimed_sample();  // parse must clear a key left in *out
    ASSERT_EQ(parse(v1, &out), RecordError::None);
    EXPECT_TRUE(same(out, sample_before_history()));
    EXPECT_STREQ(out.registry_node_key, "");
    // It had ids (a mark): since when it issued them, and under which
    // identities, is unknown.
    EXPECT_EQ(out.history.since_unix_ms, -1);
    EXPECT_FALSE(out.history.complete);
    EXPECT_TRUE(out.history.retired.none());
    // Written again, it becomes version 3.
    EXPECT_EQ(format(out).rfind("snowflake-state 3\n", 0), 0u);
}

TEST(StateRecordClaim, AVersion2FileAlreadyWrittenIsAClaimWithNoHistory) {
    const std::string v2 = with_crc(
        "snowflake-state 2\nmark_unix_ms 1505914988849\nepoch_ms 1288834974657\n"
        "datacenter_bits 5\nworker_bits 5\nsequence_bits 12\ndatacenter_id 17\nworker_id 25\n"
        "registry_node_key 7312345678901234567:db-1.example.com:5432\n");
    StateRecord out;
    ASSERT_EQ(parse(v2, &out), RecordError::None);
    StateRecord expected = claimed_sample();
    expected.history = snowflake::history_before_records(expected.mark_unix_ms);
    EXPECT_TRUE(same(out, expected));
    // A file of a node that never issued an id knows its whole history.
    const std::string fresh = with_crc(
        "snowflake-state 1\nmark_unix_ms -1\nepoch_ms 1288834974657\n"
        "datacenter_bits 5\nworker_bits 5\nsequence_bits 12\ndatacenter_id 17\nworker_id 25\n");
    ASSERT_EQ(parse(fresh, &out), RecordError::None);
    EXPECT_TRUE(out.history.complete);
}

TEST(StateRecordClaim, FormatIsTheDocumentedText) {
    const std::string body =
        "snowflake-state 3\nmark_unix_ms 1505914988849\nepoch_ms 1288834974657\n"
        "datacenter_bits 5\nworker_bits 5\nsequence_bits 12\ndatacenter_id 17\nworker_id 25\n" +
        std::string(kSampleHistory) + "registry_node_key 7312345678901234567:db-1.example.com:5432\n";
    EXPECT_EQ(format(claimed_sample()), with_crc(body));
}

TEST(StateRecordClaim, RoundTripsKeepTheKey) {
    std::string longest(snowflake::kNodeKeyMaxLen, 'k');
    for (const char *key : {"1:h:5432", "k", longest.c_str(), "18446744073709551615:a-b_c.d:65535",
                            "!~:weird#host:1"}) {
        const StateRecord r = claimed_sample(key);
        const std::string text = format(r);
        ASSERT_LT(text.size(), snowflake::kStateRecordMaxLen);
        StateRecord back;
        ASSERT_EQ(parse(text, &back), RecordError::None) << text;
        EXPECT_TRUE(same(back, r)) << text;
    }
}

TEST(StateRecordClaim, FormatRefusesAKeyThatCannotBeRecorded) {
    char buf[snowflake::kStateRecordMaxLen];
    for (const char *key : {"has space", "tab\there", "new\nline", "del\x7f", "h\xc3\xa9"}) {
        const StateRecord r = claimed_sample(key);
        EXPECT_EQ(snowflake::format_state_record(r, buf, sizeof buf), 0u) << key;
    }
    EXPECT_FALSE(snowflake::valid_node_key("", 0));
    std::string too_long(snowflake::kNodeKeyMaxLen + 1, 'k');
    EXPECT_FALSE(snowflake::valid_node_key(too_long.data(), too_long.size()));
    EXPECT_TRUE(snowflake::valid_node_key(too_long.data(), too_long.size() - 1));
}

TEST(StateRecordClaim, MissingOrBadKeyLineIsBadLine) {
    const std::string fields =
        "mark_unix_ms 1\nepoch_ms 2\ndatacenter_bits 5\nworker_bits 5\nsequence_bits 12\n"
        "datacenter_id 1\nworker_id 1\n";
    StateRecord out;
    ASSERT_EQ(parse(with_crc("snowflake-state 2\n" + fields + "registry_node_key a:b:1\n"), &out),
              RecordError::None);
    EXPECT_STREQ(out.registry_node_key, "a:b:1");
    // Version 2 without its key line, version 1 with one.
    EXPECT_EQ(parse(with_crc("snowflake-state 2\n" + fields), &out), RecordError::BadLine);
    EXPECT_EQ(parse(with_crc("snowflake-state 1\n" + fields + "registry_node_key a:b:1\n"), &out),
              RecordError::BadLine);
    std::string too_long(snowflake::kNodeKeyMaxLen + 1, 'k');
    for (const std::string &line :
         {std::string("registry_node_key \n"), std::string("registry_node_key  a\n"),
          std::string("registry_node_key a b\n"), std::string("registry_node_key a\r\n"),
          std::string("registry_node_keya\n"), std::string("node_key a\n"),
          "registry_node_key " + too_long + "\n"})
        EXPECT_EQ(parse(with_crc("snowflake-state 2\n" + fields + line), &out), RecordError::BadLine)
            << line;
    // The key line comes after the numbers, not before.
    EXPECT_EQ(parse(with_crc("snowflake-state 2\nregistry_node_key a:b:1\n" + fields), &out),
              RecordError::BadLine);
}

TEST(StateRecordClaim, EverySingleByteCorruptionIsDetected) {
    const std::string text = format(claimed_sample());
    for (size_t i = 0; i < text.size(); i++) {
        for (int b = 0; b < 256; b++) {
            if (static_cast<unsigned char>(text[i]) == b)
                continue;
            std::string bad = text;
            bad[i] = static_cast<char>(b);
            StateRecord out;
            ASSERT_NE(parse(bad, &out), RecordError::None)
                << "byte " << i << " ('" << text[i] << "') set to " << b << " went unnoticed";
        }
    }
}

TEST(StateRecordClaim, EveryTruncationIsRefused) {
    const std::string text = format(claimed_sample());
    for (size_t n = 0; n < text.size(); n++) {
        StateRecord out;
        ASSERT_NE(parse(text.substr(0, n), &out), RecordError::None) << "truncated to " << n;
    }
}

TEST(StateRecord, ErrorTextsExist) {
    for (RecordError e : {RecordError::None, RecordError::BadHeader, RecordError::BadLine,
                          RecordError::BadChecksum, RecordError::BadLayout})
        EXPECT_NE(snowflake::record_error_text(e), nullptr);
}

// ---- configuration changes -------------------------------------------------------------

TEST(ConfigChange, SameConfigurationChangesNothing) {
    const StateRecord s = sample();
    const snowflake::ConfigVerdict v =
        snowflake::check_config_change(s, s.layout, s.datacenter_id, s.worker_id);
    EXPECT_EQ(v.refused_setting, nullptr);
    EXPECT_FALSE(v.epoch_moved_earlier);
    EXPECT_FALSE(v.node_changed);
}

TEST(ConfigChange, LaterEpochIsRefusedNamingSnowflakeEpoch) {
    const StateRecord s = sample();
    Layout l = s.layout;
    l.epoch_ms += 1;
    const snowflake::ConfigVerdict v =
        snowflake::check_config_change(s, l, s.datacenter_id, s.worker_id);
    ASSERT_NE(v.refused_setting, nullptr);
    EXPECT_STREQ(v.refused_setting, "snowflake.epoch");
    EXPECT_FALSE(v.epoch_moved_earlier);
}

TEST(ConfigChange, EarlierEpochIsAcceptedAndFlagged) {
    const StateRecord s = sample();
    Layout l = s.layout;
    l.epoch_ms -= 86400000;
    const snowflake::ConfigVerdict v =
        snowflake::check_config_change(s, l, s.datacenter_id, s.worker_id);
    EXPECT_EQ(v.refused_setting, nullptr);
    EXPECT_TRUE(v.epoch_moved_earlier);
    EXPECT_FALSE(v.node_changed);
}

TEST(ConfigChange, EachWidthChangeIsRefusedNamingThatWidth) {
    const StateRecord s = sample();
    struct Case {
        int dc, wk, sq;
        const char *setting;
    };
    for (const Case &c : {Case{6, 5, 12, "snowflake.datacenter_bits"},
                          Case{4, 5, 12, "snowflake.datacenter_bits"},
                          Case{5, 6, 12, "snowflake.worker_bits"},
                          Case{5, 4, 12, "snowflake.worker_bits"},
                          Case{5, 5, 13, "snowflake.sequence_bits"},
                          Case{5, 5, 11, "snowflake.sequence_bits"}}) {
        Layout l = s.layout;
        l.datacenter_bits = c.dc;
        l.worker_bits = c.wk;
        l.sequence_bits = c.sq;
        const snowflake::ConfigVerdict v =
            snowflake::check_config_change(s, l, s.datacenter_id, s.worker_id);
        ASSERT_NE(v.refused_setting, nullptr) << c.setting;
        EXPECT_STREQ(v.refused_setting, c.setting);
    }
}

TEST(ConfigChange, WidthChangeIsRefusedEvenWithAnEarlierEpoch) {
    const StateRecord s = sample();
    Layout l = s.layout;
    l.epoch_ms -= 1000;
    l.worker_bits = 6;
    const snowflake::ConfigVerdict v =
        snowflake::check_config_change(s, l, s.datacenter_id, s.worker_id);
    ASSERT_NE(v.refused_setting, nullptr);
    EXPECT_STREQ(v.refused_setting, "snowflake.worker_bits");
}

TEST(ConfigChange, EveryChangedWidthIsNamed) {
    const StateRecord s = sample();
    Layout l = s.layout;
    l.worker_bits = 6;
    l.sequence_bits = 11;
    snowflake::ConfigVerdict v = snowflake::check_config_change(s, l, s.datacenter_id, s.worker_id);
    ASSERT_EQ(v.refused_count, 2);
    EXPECT_STREQ(v.refused_setting, "snowflake.worker_bits");
    char text[200];
    snowflake::refused_settings_text(v, text, sizeof text);
    EXPECT_STREQ(text, "snowflake.worker_bits and snowflake.sequence_bits");

    l.datacenter_bits = 4;
    l.epoch_ms += 1;
    v = snowflake::check_config_change(s, l, s.datacenter_id, s.worker_id);
    ASSERT_EQ(v.refused_count, 4);
    snowflake::refused_settings_text(v, text, sizeof text);
    EXPECT_STREQ(text, "snowflake.datacenter_bits, snowflake.worker_bits, snowflake.sequence_bits "
                       "and snowflake.epoch");
    // Cut short, never overrun.
    char small[12];
    snowflake::refused_settings_text(v, small, sizeof small);
    EXPECT_STREQ(small, "snowflake.d");
}

TEST(ConfigChange, NodeChangeIsAcceptedAndOnlyFlagged) {
    const StateRecord s = sample();
    for (auto node : {std::pair<int64_t, int64_t>{s.datacenter_id + 1, s.worker_id},
                      std::pair<int64_t, int64_t>{s.datacenter_id, s.worker_id - 1},
                      std::pair<int64_t, int64_t>{0, 0}}) {
        const snowflake::ConfigVerdict v =
            snowflake::check_config_change(s, s.layout, node.first, node.second);
        EXPECT_EQ(v.refused_setting, nullptr);
        EXPECT_FALSE(v.epoch_moved_earlier);
        EXPECT_TRUE(v.node_changed);
    }
}

// ---- version 3: the identity history -------------------------------------------------

TEST(StateRecordHistory, RoundTripsEveryField) {
    StateRecord r = claimed_sample();
    for (int64_t v : {int64_t{-1}, int64_t{0}, INT64_MAX, INT64_MIN}) {
        r.history.since_unix_ms = v;
        r.history.not_before_unix_ms = v;
        r.history.retired_since_unix_ms = v;
        r.history.retired_until_unix_ms = v;
        for (bool complete : {true, false}) {
            r.history.complete = complete;
            for (const snowflake::NodePair &p :
                 {snowflake::NodePair{0, -1}, snowflake::NodePair{2147483647, 2147483647},
                  snowflake::NodePair{-2147483648LL, 0}}) {
                r.history.retired = p;
                const std::string text = format(r);
                ASSERT_LT(text.size(), snowflake::kStateRecordMaxLen);
                StateRecord back;
                ASSERT_EQ(parse(text, &back), RecordError::None) << text;
                EXPECT_TRUE(same(back, r)) << text;
            }
        }
    }
}

TEST(StateRecordHistory, TheLongestRecordFitsItsBuffer) {
    StateRecord r = claimed_sample(std::string(snowflake::kNodeKeyMaxLen, 'k').c_str());
    r.mark_unix_ms = r.layout.epoch_ms = INT64_MIN;
    r.datacenter_id = r.worker_id = -2147483648LL;
    r.history.since_unix_ms = r.history.not_before_unix_ms = INT64_MIN;
    r.history.retired_since_unix_ms = r.history.retired_until_unix_ms = INT64_MIN;
    r.history.retired = snowflake::NodePair{-2147483648LL, -2147483648LL};
    r.layout.datacenter_bits = r.layout.worker_bits = 10;  // two digits each
    r.layout.sequence_bits = 8;
    const std::string text = format(r);
    EXPECT_LT(text.size(), 900u);
}

TEST(StateRecordHistory, MissingMisnamedOrImpossibleHistoryLinesAreBadLine) {
    const std::string fields =
        "snowflake-state 3\nmark_unix_ms 1\nepoch_ms 2\ndatacenter_bits 5\nworker_bits 5\n"
        "sequence_bits 12\ndatacenter_id 1\nworker_id 1\n";
    StateRecord out;
    ASSERT_EQ(parse(with_crc(fields + kSampleHistory), &out), RecordError::None);
    EXPECT_EQ(out.history.since_unix_ms, 1505000000000);
    ASSERT_EQ(parse(with_crc(fields + kSampleHistory + "registry_node_key a:b:1\n"), &out),
              RecordError::None);
    EXPECT_STREQ(out.registry_node_key, "a:b:1");
    // Version 3 without its history, or with one line of it missing.
    EXPECT_EQ(parse(with_crc(fields), &out), RecordError::BadLine);
    std::string history = kSampleHistory;
    for (size_t start = 0; start < history.size();) {
        const size_t end = history.find('\n', start) + 1;
        const std::string without = history.substr(0, start) + history.substr(end);
        EXPECT_EQ(parse(with_crc(fields + without), &out), RecordError::BadLine) << without;
        start = end;
    }
    // A history in a version 1 or 2 file is not theirs.
    std::string v1 = fields;
    v1[16] = '1';
    EXPECT_EQ(parse(with_crc(v1 + kSampleHistory), &out), RecordError::BadLine);
    // Values no writer produces: a flag other than 0 or 1, a retired node id
    // outside int.
    for (const char *bad : {"identities_complete 2\n", "identities_complete -1\n"}) {
        std::string h = history;
        h.replace(h.find("identities_complete"), std::string::npos, bad);
        EXPECT_EQ(parse(with_crc(fields + h), &out), RecordError::BadLine) << bad;
    }
    std::string h = history;
    h.replace(h.find("retired_worker_id 24"), 20, "retired_worker_id 2147483648");
    EXPECT_EQ(parse(with_crc(fields + h), &out), RecordError::BadLine);
    // The key before the history.
    EXPECT_EQ(parse(with_crc(fields + "registry_node_key a:b:1\n" + kSampleHistory), &out),
              RecordError::BadLine);
}

TEST(StateRecordHistory, EverySingleByteCorruptionIsDetected) {
    const std::string text = format(claimed_sample());
    for (size_t i = 0; i < text.size(); i++) {
        for (int b = 0; b < 256; b++) {
            if (static_cast<unsigned char>(text[i]) == b)
                continue;
            std::string bad = text;
            bad[i] = static_cast<char>(b);
            StateRecord out;
            ASSERT_NE(parse(bad, &out), RecordError::None)
                << "byte " << i << " ('" << text[i] << "') set to " << b << " went unnoticed";
        }
    }
}
