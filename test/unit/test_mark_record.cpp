// The durable mark's WAL record body (src/core/mark_record.*).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "mark_record.hpp"

using snowflake::Layout;
using snowflake::MarkRecordError;
using snowflake::StateRecord;

TEST(MarkRecord, Version3RoundTripsTheMarkLayoutIdentityAndHistory) {
    StateRecord in;
    in.mark_unix_ms = 1763900000123;
    in.layout.epoch_ms = 1420070400000;
    in.layout.datacenter_bits = 3;
    in.layout.worker_bits = 4;
    in.layout.sequence_bits = 16;
    in.datacenter_id = 7;
    in.worker_id = 15;
    in.history.since_unix_ms = 1763800000000;
    in.history.not_before_unix_ms = 1763800000500;
    in.history.retired = snowflake::NodePair{7, 14};
    in.history.retired_since_unix_ms = -1;
    in.history.retired_until_unix_ms = 1763799999999;
    in.history.complete = false;
    unsigned char buf[snowflake::kMarkRecordLen];
    snowflake::encode_mark_record(in, buf);
    StateRecord r;
    int version = 0;
    ASSERT_EQ(snowflake::decode_mark_record(buf, sizeof buf, &r, &version), MarkRecordError::None);
    EXPECT_EQ(version, 3);
    EXPECT_EQ(r.mark_unix_ms, 1763900000123);
    EXPECT_TRUE(r.layout == in.layout);
    EXPECT_EQ(r.datacenter_id, 7);
    EXPECT_EQ(r.worker_id, 15);
    EXPECT_TRUE(r.history == in.history);
    EXPECT_STREQ(r.registry_node_key, "") << "the key is not in the WAL";
}

TEST(MarkRecord, Version2RoundTripsTheMarkEpochAndWidthsWithoutAnIdentity) {
    Layout l;
    l.epoch_ms = 1420070400000;
    l.datacenter_bits = 3;
    l.worker_bits = 4;
    l.sequence_bits = 16;
    unsigned char buf[snowflake::kMarkRecordV2Len];
    snowflake::encode_mark_record_v2(1763900000123, l, buf);
    StateRecord r;
    int version = 0;
    ASSERT_EQ(snowflake::decode_mark_record(buf, sizeof buf, &r, &version), MarkRecordError::None);
    EXPECT_EQ(version, 2);
    EXPECT_EQ(r.mark_unix_ms, 1763900000123);
    EXPECT_TRUE(r.layout == l);
    EXPECT_EQ(r.worker_id, -1);
    EXPECT_TRUE(r.history == snowflake::history_before_records(1763900000123));
    EXPECT_FALSE(r.history.complete) << "ids before it, history unknown";
}

TEST(MarkRecord, Version1RecordsGiveTheMarkAndEpochWithoutWidths) {
    // What builds before version 2 wrote: {int64 mark_unix_ms, int64 epoch_ms}.
    const int64_t v1[2] = {1700000000000, 1288834974657};
    StateRecord r;
    int version = 0;
    ASSERT_EQ(snowflake::decode_mark_record(reinterpret_cast<const unsigned char *>(v1),
                                            sizeof v1, &r, &version),
              MarkRecordError::None);
    EXPECT_EQ(version, 1);
    EXPECT_EQ(r.mark_unix_ms, 1700000000000);
    EXPECT_EQ(r.layout.epoch_ms, 1288834974657);
}

TEST(MarkRecord, AnyOtherLengthIsRefusedBeforeAnythingIsRead) {
    // The buffer is exactly `len` bytes long: ASan/valgrind catch a read past it.
    for (size_t len : {size_t{0}, size_t{1}, size_t{8}, size_t{15}, size_t{17}, size_t{24},
                       size_t{31}, size_t{33}, size_t{64}, size_t{87}, size_t{89}}) {
        std::vector<unsigned char> buf(len, 0xAB);
        StateRecord r;
        int version;
        EXPECT_EQ(snowflake::decode_mark_record(buf.data(), len, &r, &version),
                  MarkRecordError::BadLength)
            << len;
    }
}

TEST(MarkRecord, AWrongTagOrImpossibleWidthsAreRefused) {
    unsigned char buf[snowflake::kMarkRecordV2Len];
    snowflake::encode_mark_record_v2(5, Layout{}, buf);
    buf[0] ^= 1;
    StateRecord r;
    int version;
    EXPECT_EQ(snowflake::decode_mark_record(buf, sizeof buf, &r, &version), MarkRecordError::BadTag);
    Layout bad;
    bad.sequence_bits = 0;
    snowflake::encode_mark_record_v2(5, bad, buf);
    EXPECT_EQ(snowflake::decode_mark_record(buf, sizeof buf, &r, &version),
              MarkRecordError::BadLayout);
    EXPECT_STRNE(snowflake::mark_record_error_text(MarkRecordError::BadLength), "");
    // A version-3 body with version 2's tag, and the other way round.
    unsigned char v3[snowflake::kMarkRecordLen];
    snowflake::encode_mark_record(StateRecord{}, v3);
    std::memcpy(v3, &snowflake::kMarkRecordTagV2, 4);
    EXPECT_EQ(snowflake::decode_mark_record(v3, sizeof v3, &r, &version), MarkRecordError::BadTag);
    snowflake::encode_mark_record_v2(5, Layout{}, buf);
    std::memcpy(buf, &snowflake::kMarkRecordTag, 4);
    EXPECT_EQ(snowflake::decode_mark_record(buf, sizeof buf, &r, &version), MarkRecordError::BadTag);
}

TEST(MarkRecord, Version3RefusesAFlagOrPaddingNoWriterProduces) {
    unsigned char buf[snowflake::kMarkRecordLen];
    StateRecord r;
    int version;
    snowflake::encode_mark_record(StateRecord{}, buf);
    buf[80] = 2;
    EXPECT_EQ(snowflake::decode_mark_record(buf, sizeof buf, &r, &version),
              MarkRecordError::BadIdentity);
    snowflake::encode_mark_record(StateRecord{}, buf);
    buf[86] = 1;
    EXPECT_EQ(snowflake::decode_mark_record(buf, sizeof buf, &r, &version),
              MarkRecordError::BadIdentity);
    EXPECT_STRNE(snowflake::mark_record_error_text(MarkRecordError::BadIdentity), "");
}
