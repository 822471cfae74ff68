#include "state_record.hpp"

#include <cstdio>
#include <cstring>

#include "epoch.hpp"

namespace snowflake {

namespace {

constexpr const char *kHeaderV1 = "snowflake-state 1";  // a configured identity
constexpr const char *kHeaderV2 = "snowflake-state 2";  // plus the registry claim's key
constexpr const char *kHeaderV3 = "snowflake-state 3";  // plus the identity history
constexpr const char *kNodeKeyName = "registry_node_key";

// The fields in file order; the checksum line follows them.
constexpr const char *kKeys[] = {"mark_unix_ms",  "epoch_ms",    "datacenter_bits",
                                 "worker_bits",   "sequence_bits", "datacenter_id",
                                 "worker_id"};
constexpr int kNumKeys = sizeof(kKeys) / sizeof(kKeys[0]);

// Version 3's identity history, after the fields above.
constexpr const char *kHistoryKeys[] = {
    "identity_since_unix_ms", "identity_not_before_unix_ms", "retired_datacenter_id",
    "retired_worker_id",      "retired_since_unix_ms",       "retired_until_unix_ms",
    "identities_complete"};
constexpr int kNumHistoryKeys = sizeof(kHistoryKeys) / sizeof(kHistoryKeys[0]);

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

void history_to_values(const IdentityHistory &h, int64_t *v) {
    v[0] = h.since_unix_ms;
    v[1] = h.not_before_unix_ms;
    v[2] = h.retired.datacenter_id;
    v[3] = h.retired.worker_id;
    v[4] = h.retired_since_unix_ms;
    v[5] = h.retired_until_unix_ms;
    v[6] = h.complete ? 1 : 0;
}

// False for values no writer produces: node ids outside int, a flag not 0/1.
bool history_from_values(const int64_t *v, IdentityHistory *h) {
    if (v[2] < -2147483648LL || v[2] > 2147483647LL || v[3] < -2147483648LL ||
        v[3] > 2147483647LL || (v[6] != 0 && v[6] != 1))
        return false;
    h->since_unix_ms = v[0];
    h->not_before_unix_ms = v[1];
    h->retired = NodePair{v[2], v[3]};
    h->retired_since_unix_ms = v[4];
    h->retired_until_unix_ms = v[5];
    h->complete = v[6] == 1;
    return true;
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

// The version a header line names: 1 to 3, or 0 if it is not ours.
int header_version(const char *line, size_t len) {
    const char *const headers[] = {kHeaderV1, kHeaderV2, kHeaderV3};
    for (int i = 0; i < 3; i++)
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
    int64_t hv[kNumHistoryKeys];
    history_to_values(rec.history, hv);
    const size_t key_len = strnlen(rec.registry_node_key, sizeof rec.registry_node_key);
    const bool claimed = key_len > 0;
    if (claimed && !valid_node_key(rec.registry_node_key, key_len))
        return 0;
    size_t n = 0;
    // Appends one formatted line; false once buf is full.
    const auto line = [&](int w) {
        if (w <= 0 || n + static_cast<size_t>(w) >= buflen)
            return false;
        n += static_cast<size_t>(w);
        return true;
    };
    if (buflen == 0 || !line(snprintf(buf, buflen, "%s\n", kHeaderV3)))
        return 0;
    for (int i = 0; i < kNumKeys; i++)
        if (!line(snprintf(buf + n, buflen - n, "%s %lld\n", kKeys[i],
                           static_cast<long long>(v[i]))))
            return 0;
    for (int i = 0; i < kNumHistoryKeys; i++)
        if (!line(snprintf(buf + n, buflen - n, "%s %lld\n", kHistoryKeys[i],
                           static_cast<long long>(hv[i]))))
            return 0;
    if (claimed && !line(snprintf(buf + n, buflen - n, "%s %.*s\n", kNodeKeyName,
                                  static_cast<int>(key_len), rec.registry_node_key)))
        return 0;
    if (!line(snprintf(buf + n, buflen - n, "crc32 %08x\n", crc32(buf, n))))
        return 0;
    return n;
}

const char *record_error_text(RecordError e) {
    switch (e) {
    case RecordError::None:
        return "valid";
    case RecordError::BadHeader:
        return "does not start with \"snowflake-state 1\", \"snowflake-state 2\" or "
               "\"snowflake-state 3\"";
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
    // One "key number" line.
    const auto number = [&](const char *key, int64_t *value) {
        const char *text;
        size_t tlen;
        return next_line(buf, len, &pos, &line, &line_len) &&
               key_value(line, line_len, key, &text, &tlen) && parse_int64(text, tlen, value);
    };
    int64_t v[kNumKeys];
    for (int i = 0; i < kNumKeys; i++)
        if (!number(kKeys[i], &v[i]))
            return RecordError::BadLine;
    int64_t hv[kNumHistoryKeys];
    if (version == 3)
        for (int i = 0; i < kNumHistoryKeys; i++)
            if (!number(kHistoryKeys[i], &hv[i]))
                return RecordError::BadLine;
    // The key line: always in version 2; in version 3 only for a claim, so
    // the line after the numbers is either the key or the checksum.
    const char *node_key = nullptr;
    size_t node_key_len = 0;
    const size_t before_key = pos;
    if (version >= 2 && next_line(buf, len, &pos, &line, &line_len) &&
        key_value(line, line_len, kNodeKeyName, &node_key, &node_key_len)) {
        if (!valid_node_key(node_key, node_key_len))
            return RecordError::BadLine;
    } else {
        if (version == 2)
            return RecordError::BadLine;
        node_key = nullptr;
        node_key_len = 0;
        pos = before_key;
    }
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
    IdentityHistory history = history_before_records(v[0]);
    if (version == 3 && !history_from_values(hv, &history))
        return RecordError::BadLine;
    from_values(v, out);
    memcpy(out->registry_node_key, node_key ? node_key : "", node_key_len);
    out->registry_node_key[node_key_len] = '\0';
    out->history = history;
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
