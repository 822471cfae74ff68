#include "mark_record.hpp"

#include <cstring>

namespace snowflake {

namespace {

template <typename T>
void put(unsigned char *buf, size_t at, T v) {
    std::memcpy(buf + at, &v, sizeof v);
}

template <typename T>
T get(const unsigned char *buf, size_t at) {
    T v;
    std::memcpy(&v, buf + at, sizeof v);
    return v;
}

}  // namespace

void encode_mark_record(int64_t mark_unix_ms, const Layout &layout, unsigned char *buf) {
    put<uint32_t>(buf, 0, kMarkRecordTag);
    put<int32_t>(buf, 4, layout.datacenter_bits);
    put<int32_t>(buf, 8, layout.worker_bits);
    put<int32_t>(buf, 12, layout.sequence_bits);
    put<int64_t>(buf, 16, mark_unix_ms);
    put<int64_t>(buf, 24, layout.epoch_ms);
}

const char *mark_record_error_text(MarkRecordError e) {
    switch (e) {
    case MarkRecordError::None:
        return "no error";
    case MarkRecordError::BadLength:
        return "has a length that no version of the record has";
    case MarkRecordError::BadTag:
        return "does not start with the version-2 tag";
    case MarkRecordError::BadLayout:
        return "records widths that no server accepts";
    }
    return "is unreadable";
}

MarkRecordError decode_mark_record(const unsigned char *data, size_t len, StateRecord *out,
                                   bool *has_widths) {
    StateRecord r;
    if (len == kMarkRecordV1Len) {
        r.mark_unix_ms = get<int64_t>(data, 0);
        r.layout.epoch_ms = get<int64_t>(data, 8);
        *has_widths = false;
        *out = r;
        return MarkRecordError::None;
    }
    if (len != kMarkRecordLen)
        return MarkRecordError::BadLength;
    if (get<uint32_t>(data, 0) != kMarkRecordTag)
        return MarkRecordError::BadTag;
    r.layout.datacenter_bits = get<int32_t>(data, 4);
    r.layout.worker_bits = get<int32_t>(data, 8);
    r.layout.sequence_bits = get<int32_t>(data, 12);
    r.mark_unix_ms = get<int64_t>(data, 16);
    r.layout.epoch_ms = get<int64_t>(data, 24);
    if (validate_widths(r.layout.datacenter_bits, r.layout.worker_bits, r.layout.sequence_bits) !=
        LayoutError::None)
        return MarkRecordError::BadLayout;
    *has_widths = true;
    *out = r;
    return MarkRecordError::None;
}

}  // namespace snowflake
