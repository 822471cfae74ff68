#include "state_record.hpp"

#include <cstdio>
#include <cstring>

#include "epoch.hpp"

namespace snowflake {

namespace {

constexpr const char *kHeaderV1 = "snowflake-state 1";  // a configured identity
constexpr const char *kHeaderV2 = "snowflake-state 2";  // plus the registry claim's key
constexpr const char *kNodeKeyName = "registry_node_key";

// The fields in file order; the checksum line follows them.
constexpr const char *kKeys[] = {"mark_unix_ms",  "epoch_ms",    "datacenter_bits",
                                 "worker_bits",   "sequence_bits", "datacenter_id",
                                 "worker_id"};
constexpr int kNumKeys = sizeof(kKeys) / sizeof(kKeys[0]);

void to_values(const StateRecord &r, int64_t *v) {
    v[0] = r.mark_unix_ms;
    v[1] = r.layout.epoch_ms;
    v[2] = r.layout.datacenter_bits;
    v[3] = r.layout.worker_bits;
    v[4] = r.layout.sequence_bits;
    v[5] = r.datacenter_id;
    v[6] = r.worker_id;
}

void from_values(const int64_t *v, StateRecord *r) {
    r->mark_unix_ms = v[0];
    r->layout.epoch_ms = v[1];
    r->layout.datacenter_bits = static_cast<int>(v[2]);
    r->layout.worker_bits = static_cast<int>(v[3]);
    r->layout.sequence_bits = static_cast<int>(v[4]);
    r->datacenter_id = v[5];
    r->worker_id = v[6];
}

// Reads one '\n'-terminated line starting at *pos.
bool next_line(const char *buf, size_t len, size_t *pos, const char **line, size_t *line_len) {
    if (*pos >= len)
        return false;
    const char *start = buf + *pos;
    const void *nl = memchr(start, '\n', len - *pos);
    if (!nl)
        return false;
    *line = start;
    *line_len = static_cast<size_t>(static_cast<const char *>(nl) - start);
    *pos += *line_len + 1;
    return true;
}

// Parses "key value" into value; the key must match exactly.
bool key_value(const char *line, size_t len, const char *key, const char **value, size_t *vlen) {
    const size_t klen = strlen(key);
    if (len <= klen + 1 || memcmp(line, key, klen) != 0 || line[klen] != ' ')
        return false;
    *value = line + klen + 1;
    *vlen = len - klen - 1;
    return true;
}

bool in_int_range(int64_t v) { return v >= -2147483648LL && v <= 2147483647LL; }

// The version a header line names: 1, 2, or 0 if it is not ours.
int header_version(const char *line, size_t len) {
    const char *const headers[] = {kHeaderV1, kHeaderV2};
    for (int i = 0; i < 2; i++)
        if (len == strlen(headers[i]) && memcmp(line, headers[i], len) == 0)
            return i + 1;
    return 0;
}

}  // namespace

bool valid_node_key(const char *key, size_t len) {
    if (len == 0 || len > kNodeKeyMaxLen)
        return false;
    for (size_t i = 0; i < len; i++)
        if (key[i] <= ' ' || key[i] > '~')
            return false;
    return true;
}

uint32_t crc32(const char *data, size_t len) {
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; i++) {
        crc ^= static_cast<unsigned char>(data[i]);
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

size_t format_state_record(const StateRecord &rec, char *buf, size_t buflen) {
    int64_t v[kNumKeys];
    to_values(rec, v);
    const size_t key_len = strnlen(rec.registry_node_key, sizeof rec.registry_node_key);
    const bool claimed = key_len > 0;
    if (claimed && !valid_node_key(rec.registry_node_key, key_len))
        return 0;
    size_t n = 0;
    int w = snprintf(buf, buflen, "%s\n", claimed ? kHeaderV2 : kHeaderV1);
    for (int i = 0; w > 0 && i < kNumKeys; i++) {
        n += static_cast<size_t>(w);
        if (n >= buflen)
            return 0;
        w = snprintf(buf + n, buflen - n, "%s %lld\n", kKeys[i], static_cast<long long>(v[i]));
    }
    if (w > 0 && claimed) {
        n += static_cast<size_t>(w);
        if (n >= buflen)
            return 0;
        w = snprintf(buf + n, buflen - n, "%s %.*s\n", kNodeKeyName, static_cast<int>(key_len),
                     rec.registry_node_key);
    }
    if (w <= 0)
        return 0;
    n += static_cast<size_t>(w);
    if (n >= buflen)
        return 0;
    w = snprintf(buf + n, buflen - n, "crc32 %08x\n", crc32(buf, n));
    if (w <= 0 || n + static_cast<size_t>(w) >= buflen)
        return 0;
    return n + static_cast<size_t>(w);
}

const char *record_error_text(RecordError e) {
    switch (e) {
    case RecordError::None:
        return "valid";
    case RecordError::BadHeader:
        return "does not start with \"snowflake-state 1\" or \"snowflake-state 2\"";
    case RecordError::BadLine:
        return "has a missing or malformed line";
    case RecordError::BadChecksum:
        return "does not match its CRC-32 checksum";
    case RecordError::BadLayout:
        return "records an invalid layout";
    }
    return "unknown error";
}

RecordError parse_state_record(const char *buf, size_t len, StateRecord *out) {
    size_t pos = 0;
    const char *line;
    size_t line_len;
    if (!next_line(buf, len, &pos, &line, &line_len))
        return RecordError::BadHeader;
    const int version = header_version(line, line_len);
    if (version == 0)
        return RecordError::BadHeader;
    int64_t v[kNumKeys];
    for (int i = 0; i < kNumKeys; i++) {
        const char *value;
        size_t vlen;
        if (!next_line(buf, len, &pos, &line, &line_len) ||
            !key_value(line, line_len, kKeys[i], &value, &vlen) || !parse_int64(value, vlen, &v[i]))
            return RecordError::BadLine;
    }
    const char *node_key = nullptr;
    size_t node_key_len = 0;
    if (version == 2 &&
        (!next_line(buf, len, &pos, &line, &line_len) ||
         !key_value(line, line_len, kNodeKeyName, &node_key, &node_key_len) ||
         !valid_node_key(node_key, node_key_len)))
        return RecordError::BadLine;
    const size_t body_len = pos;
    const char *value;
    size_t vlen;
    if (!next_line(buf, len, &pos, &line, &line_len) ||
        !key_value(line, line_len, "crc32", &value, &vlen) || vlen != 8 || pos != len)
        return RecordError::BadLine;
    char expected[9];
    snprintf(expected, sizeof expected, "%08x", crc32(buf, body_len));
    if (memcmp(value, expected, 8) != 0)
        return RecordError::BadChecksum;
    for (int i = 2; i < kNumKeys; i++)
        if (!in_int_range(v[i]))
            return RecordError::BadLayout;
    from_values(v, out);
    memcpy(out->registry_node_key, node_key ? node_key : "", node_key_len);
    out->registry_node_key[node_key_len] = '\0';
    const Layout &l = out->layout;
    if (validate_widths(l.datacenter_bits, l.worker_bits, l.sequence_bits) != LayoutError::None)
        return RecordError::BadLayout;
    return RecordError::None;
}

ConfigVerdict check_config_change(const StateRecord &stored, const Layout &layout,
                                  int64_t datacenter_id, int64_t worker_id) {
    ConfigVerdict v;
    const auto refuse = [&v](const char *name) { v.refused[v.refused_count++] = name; };
    // A different width moves every field: old and new ids no longer order
    // by time, so collisions cannot be ruled out.
    if (stored.layout.datacenter_bits != layout.datacenter_bits)
        refuse("snowflake.datacenter_bits");
    if (stored.layout.worker_bits != layout.worker_bits)
        refuse("snowflake.worker_bits");
    if (stored.layout.sequence_bits != layout.sequence_bits)
        refuse("snowflake.sequence_bits");
    // A later epoch shrinks the timestamp field of every future id, so new
    // ids could equal or undercut old ones.  An earlier epoch only grows it.
    if (layout.epoch_ms > stored.layout.epoch_ms)
        refuse("snowflake.epoch");
    v.refused_setting = v.refused[0];
    v.epoch_moved_earlier = layout.epoch_ms < stored.layout.epoch_ms;
    v.node_changed = stored.datacenter_id != datacenter_id || stored.worker_id != worker_id;
    return v;
}

void refused_settings_text(const ConfigVerdict &v, char *buf, size_t buflen) {
    if (buflen == 0)
        return;
    buf[0] = '\0';
    size_t n = 0;
    for (int i = 0; i < v.refused_count && n < buflen; i++) {
        const char *sep = i == 0 ? "" : (i == v.refused_count - 1 ? " and " : ", ");
        const int w = snprintf(buf + n, buflen - n, "%s%s", sep, v.refused[i]);
        if (w < 0)
            return;
        n += static_cast<size_t>(w);
    }
}

}  // namespace snowflake
