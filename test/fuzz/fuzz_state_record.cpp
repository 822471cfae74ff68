// Fuzzes the state file's text format (src/core/state_record.*).
// Invariants:
//   - parse_state_record never crashes, on raw bytes or on bytes given a
//     correct checksum (so the fuzzer gets past the CRC to the fields);
//   - whatever parses (versions 1 to 3) has a valid layout and formats back
//     to a record that parses to the same values, history included;
//   - any record with valid widths (and a valid registry node key, if any)
//     formats (never past the buffer) and parses back to itself; a key that
//     cannot be recorded is refused by the formatter;
//   - check_config_change refuses exactly width changes and later epochs.
#include <cstring>

#include "fuzz_input.hpp"
#include "layout.hpp"
#include "state_record.hpp"

using namespace snowflake;

namespace {

bool same(const StateRecord &a, const StateRecord &b) {
    return a.mark_unix_ms == b.mark_unix_ms && a.layout == b.layout &&
           a.datacenter_id == b.datacenter_id && a.worker_id == b.worker_id &&
           strcmp(a.registry_node_key, b.registry_node_key) == 0 && a.history == b.history;
}

void check_round_trip(const StateRecord &rec) {
    char buf[kStateRecordMaxLen];
    const size_t n = format_state_record(rec, buf, sizeof buf);
    FUZZ_CHECK(n > 0 && n < sizeof buf && strlen(buf) == n);
    StateRecord back;
    back.mark_unix_ms = 99;
    FUZZ_CHECK(parse_state_record(buf, n, &back) == RecordError::None);
    FUZZ_CHECK(same(rec, back));
    // Any truncation is refused, never read past.
    FUZZ_CHECK(parse_state_record(buf, n - 1, &back) != RecordError::None);
}

void check_parse(const char *buf, size_t len) {
    StateRecord rec;
    if (parse_state_record(buf, len, &rec) != RecordError::None)
        return;
    const Layout &l = rec.layout;
    FUZZ_CHECK(validate_widths(l.datacenter_bits, l.worker_bits, l.sequence_bits) ==
               LayoutError::None);
    const size_t key_len = strlen(rec.registry_node_key);
    FUZZ_CHECK(key_len == 0 || valid_node_key(rec.registry_node_key, key_len));
    check_round_trip(rec);
}

// The bytes as a body, with the checksum line a real writer would add.
void check_parse_with_crc(const char *body, size_t len) {
    if (len > 4096)
        return;
    char buf[4096 + 32];
    memcpy(buf, body, len);
    const int n = snprintf(buf + len, 32, "crc32 %08x\n", crc32(body, len));
    check_parse(buf, len + static_cast<size_t>(n));
}

StateRecord fuzzed_record(fuzz::Input &in) {
    StateRecord r;
    r.mark_unix_ms = in.i64();
    r.layout.epoch_ms = in.i64();
    int dc = static_cast<int>(in.range(0, 27));
    int wk = static_cast<int>(in.range(0, 27 - dc));
    int seq = static_cast<int>(in.range(1, 28 - dc - wk));
    FUZZ_CHECK(validate_widths(dc, wk, seq) == LayoutError::None);
    r.layout.datacenter_bits = dc;
    r.layout.worker_bits = wk;
    r.layout.sequence_bits = seq;
    // Node ids come from int settings: the file holds them as int range
    // values (parse refuses others as a bad layout).
    r.datacenter_id = static_cast<int32_t>(in.u32());
    r.worker_id = static_cast<int32_t>(in.u32());
    // The identity history: any times, node ids of int settings.
    r.history.since_unix_ms = in.i64();
    r.history.not_before_unix_ms = in.i64();
    r.history.retired = NodePair{static_cast<int32_t>(in.u32()), static_cast<int32_t>(in.u32())};
    r.history.retired_since_unix_ms = in.i64();
    r.history.retired_until_unix_ms = in.i64();
    r.history.complete = in.byte() & 1;
    // Half of the records are registry claims, with keys of fuzzed bytes:
    // those that cannot be recorded are refused by the formatter.
    if (in.byte() & 1) {
        size_t len;
        const char *key = in.chunk(kNodeKeyMaxLen + 8, &len);
        if (len > kNodeKeyMaxLen)
            len = kNodeKeyMaxLen;
        memcpy(r.registry_node_key, key, len);
        r.registry_node_key[len] = '\0';
        if (!valid_node_key(r.registry_node_key, strlen(r.registry_node_key))) {
            char buf[kStateRecordMaxLen];
            FUZZ_CHECK(strlen(r.registry_node_key) == 0 ||
                       format_state_record(r, buf, sizeof buf) == 0);
            r.registry_node_key[0] = '\0';
        }
    }
    return r;
}

void check_small_buffers(const StateRecord &rec, size_t buflen) {
    char full[kStateRecordMaxLen];
    const size_t need = format_state_record(rec, full, sizeof full);
    // An exactly sized heap buffer lets ASan catch any write past its end.
    char *buf = new char[buflen ? buflen : 1];
    const size_t n = format_state_record(rec, buf, buflen);
    if (n != 0) {
        FUZZ_CHECK(n == need && n < buflen && memcmp(buf, full, n + 1) == 0);
    } else {
        FUZZ_CHECK(buflen <= need);
    }
    delete[] buf;
}

void check_config(const StateRecord &stored, const StateRecord &now) {
    const ConfigVerdict v =
        check_config_change(stored, now.layout, now.datacenter_id, now.worker_id);
    const Layout &a = stored.layout, &b = now.layout;
    const bool widths = a.datacenter_bits != b.datacenter_bits ||
                        a.worker_bits != b.worker_bits || a.sequence_bits != b.sequence_bits;
    FUZZ_CHECK((v.refused_setting != nullptr) == (widths || b.epoch_ms > a.epoch_ms));
    FUZZ_CHECK(v.epoch_moved_earlier == (b.epoch_ms < a.epoch_ms));
    FUZZ_CHECK(v.node_changed == (stored.datacenter_id != now.datacenter_id ||
                                  stored.worker_id != now.worker_id));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = reinterpret_cast<const char *>(data);
    check_parse(text, size);
    check_parse_with_crc(text, size);

    fuzz::Input in(data, size);
    const StateRecord a = fuzzed_record(in);
    check_round_trip(a);
    check_small_buffers(a, static_cast<size_t>(in.range(0, kStateRecordMaxLen)));
    StateRecord b = fuzzed_record(in);
    if (in.byte() & 1)
        b.layout = a.layout;  // often the same widths, so the epoch rule is reached
    check_config(a, b);
    return 0;
}
