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

void put_v2(uint32_t tag, int64_t mark_unix_ms, const Layout &layout, unsigned char *buf) {
    put<uint32_t>(buf, 0, tag);
    put<int32_t>(buf, 4, layout.datacenter_bits);
    put<int32_t>(buf, 8, layout.worker_bits);
    put<int32_t>(buf, 12, layout.sequence_bits);
    put<int64_t>(buf, 16, mark_unix_ms);
    put<int64_t>(buf, 24, layout.epoch_ms);
}

bool fits_int(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

}  // namespace

void encode_mark_record_v2(int64_t mark_unix_ms, const Layout &layout, unsigned char *buf) {
    put_v2(kMarkRecordTagV2, mark_unix_ms, layout, buf);
}

void encode_mark_record(const StateRecord &rec, unsigned char *buf) {
    put_v2(kMarkRecordTag, rec.mark_unix_ms, rec.layout, buf);
    const IdentityHistory &h = rec.history;
    // Node ids come from int settings; anything else is recorded as none.
    const bool node_ok = fits_int(rec.datacenter_id) && fits_int(rec.worker_id);
    const bool retired_ok = fits_int(h.retired.datacenter_id) && fits_int(h.retired.worker_id);
    put<int32_t>(buf, 32, node_ok ? static_cast<int32_t>(rec.datacenter_id) : 0);
    put<int32_t>(buf, 36, node_ok ? static_cast<int32_t>(rec.worker_id) : -1);
    put<int64_t>(buf, 40, h.since_unix_ms);
    put<int64_t>(buf, 48, h.not_before_unix_ms);
    put<int32_t>(buf, 56, retired_ok ? static_cast<int32_t>(h.retired.datacenter_id) : 0);
    put<int32_t>(buf, 60, retired_ok ? static_cast<int32_t>(h.retired.worker_id) : -1);
    put<int64_t>(buf, 64, h.retired_since_unix_ms);
    put<int64_t>(buf, 72, h.retired_until_unix_ms);
    put<uint32_t>(buf, 80, h.complete ? 1 : 0);
    put<uint32_t>(buf, 84, 0);
}

const char *mark_record_error_text(MarkRecordError e) {
    switch (e) {
    case MarkRecordError::None:
        return "no error";
    case MarkRecordError::BadLength:
        return "has a length that no version of the record has";
    case MarkRecordError::BadTag:
        return "does not start with its version's tag";
    case MarkRecordError::BadLayout:
        return "records widths that no server accepts";
    case MarkRecordError::BadIdentity:
        return "records an identity history that no server writes";
    }
    return "is unreadable";
}

MarkRecordError decode_mark_record(const unsigned char *data, size_t len, StateRecord *out,
                                   int *version) {
    StateRecord r;
    r.worker_id = -1;
    if (len == kMarkRecordV1Len) {
        r.mark_unix_ms = get<int64_t>(data, 0);
        r.layout.epoch_ms = get<int64_t>(data, 8);
        r.history = history_before_records(r.mark_unix_ms);
        *version = 1;
        *out = r;
        return MarkRecordError::None;
    }
    if (len != kMarkRecordV2Len && len != kMarkRecordLen)
        return MarkRecordError::BadLength;
    const bool v3 = len == kMarkRecordLen;
    if (get<uint32_t>(data, 0) != (v3 ? kMarkRecordTag : kMarkRecordTagV2))
        return MarkRecordError::BadTag;
    r.layout.datacenter_bits = get<int32_t>(data, 4);
    r.layout.worker_bits = get<int32_t>(data, 8);
    r.layout.sequence_bits = get<int32_t>(data, 12);
    r.mark_unix_ms = get<int64_t>(data, 16);
    r.layout.epoch_ms = get<int64_t>(data, 24);
    if (validate_widths(r.layout.datacenter_bits, r.layout.worker_bits, r.layout.sequence_bits) !=
        LayoutError::None)
        return MarkRecordError::BadLayout;
    r.history = history_before_records(r.mark_unix_ms);
    if (v3) {
        const uint32_t complete = get<uint32_t>(data, 80);
        if (complete > 1 || get<uint32_t>(data, 84) != 0)
            return MarkRecordError::BadIdentity;
        r.datacenter_id = get<int32_t>(data, 32);
        r.worker_id = get<int32_t>(data, 36);
        IdentityHistory &h = r.history;
        h.since_unix_ms = get<int64_t>(data, 40);
        h.not_before_unix_ms = get<int64_t>(data, 48);
        h.retired = NodePair{get<int32_t>(data, 56), get<int32_t>(data, 60)};
        h.retired_since_unix_ms = get<int64_t>(data, 64);
        h.retired_until_unix_ms = get<int64_t>(data, 72);
        h.complete = complete == 1;
    }
    *version = v3 ? 3 : 2;
    *out = r;
    return MarkRecordError::None;
}

}  // namespace snowflake
