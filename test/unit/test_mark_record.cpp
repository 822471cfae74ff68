// The durable mark's WAL record body (src/core/mark_record.*).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "mark_record.hpp"

using snowflake::Layout;
using snowflake::MarkRecordError;
using snowflake::StateRecord;

TEST(MarkRecord, Version2RoundTripsTheMarkEpochAndWidths) {
    Layout l;
    l.epoch_ms = 1420070400000;
    l.datacenter_bits = 3;
    l.worker_bits = 4;
    l.sequence_bits = 16;
    unsigned char buf[snowflake::kMarkRecordLen];
    snowflake::encode_mark_record(1763900000123, l, buf);
    StateRecord r;
    bool widths = false;
    ASSERT_EQ(snowflake::decode_mark_record(buf, sizeof buf, &r, &widths), MarkRecordError::None);
    EXPECT_TRUE(widths);
    EXPECT_EQ(r.mark_unix_ms, 1763900000123);
    EXPECT_TRUE(r.layout == l);
}

TEST(MarkRecord, Version1RecordsGiveTheMarkAndEpochWithoutWidths) {
    // What builds before version 2 wrote: {int64 mark_unix_ms, int64 epoch_ms}.
    const int64_t v1[2] = {1700000000000, 1288834974657};
    StateRecord r;
    bool widths = true;
    ASSERT_EQ(snowflake::decode_mark_record(reinterpret_cast<const unsigned char *>(v1),
                                            sizeof v1, &r, &widths),
              MarkRecordError::None);
    EXPECT_FALSE(widths);
    EXPECT_EQ(r.mark_unix_ms, 1700000000000);
    EXPECT_EQ(r.layout.epoch_ms, 1288834974657);
}

TEST(MarkRecord, AnyOtherLengthIsRefusedBeforeAnythingIsRead) {
    // The buffer is exactly `len` bytes long: ASan/valgrind catch a read past it.
    for (size_t len : {size_t{0}, size_t{1}, size_t{8}, size_t{15}, size_t{17}, size_t{24},
                       size_t{31}, size_t{33}, size_t{64}}) {
        std::vector<unsigned char> buf(len, 0xAB);
        StateRecord r;
        bool widths;
        EXPECT_EQ(snowflake::decode_mark_record(buf.data(), len, &r, &widths),
                  MarkRecordError::BadLength)
            << len;
    }
}

TEST(MarkRecord, AWrongTagOrImpossibleWidthsAreRefused) {
    unsigned char buf[snowflake::kMarkRecordLen];
    snowflake::encode_mark_record(5, Layout{}, buf);
    buf[0] ^= 1;
    StateRecord r;
    bool widths;
    EXPECT_EQ(snowflake::decode_mark_record(buf, sizeof buf, &r, &widths), MarkRecordError::BadTag);
    Layout bad;
    bad.sequence_bits = 0;
    snowflake::encode_mark_record(5, bad, buf);
    EXPECT_EQ(snowflake::decode_mark_record(buf, sizeof buf, &r, &widths),
              MarkRecordError::BadLayout);
    EXPECT_STRNE(snowflake::mark_record_error_text(MarkRecordError::BadLength), "");
}
