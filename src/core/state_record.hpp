// The durable state file's contents: the high-water mark, the epoch, layout
// and node identity it was issued under, and what the node knows about the
// identities it issued ids under (identity_history.hpp), as checksummed text.
//
// Three versions of the text exist, all read:
//   1  the seven numeric lines (a configured identity; before 1.3);
//   2  version 1 plus registry_node_key, the key a claim from
//      snowflake.registry (or an identity from the Citus group id, under
//      "citus:" + the node's key) was made under, so that a restart of that
//      node, and only of that node, resumes it (1.3 and 1.4);
//   3  the numeric lines, then the identity history's seven numeric lines,
//      then registry_node_key only for a claim (1.5 and later: the only
//      version written).
// A version 1 or 2 file carries no history: history_before_records() says
// what it implies.
//
// Only (de)serialisation and the rules for configuration changes live here;
// the PostgreSQL layer does the durable I/O (write temp, fsync, rename,
// fsync dir) and reports errors.
#pragma once

#ifdef POSTGRES_H
#error "src/core must not see PostgreSQL headers"
#endif

#include <cstddef>
#include <cstdint>

#include "identity_history.hpp"
#include "layout.hpp"

namespace snowflake {

// The longest registry node key ("system identifier:host name:port").
constexpr size_t kNodeKeyMaxLen = 320;

struct StateRecord {
    int64_t mark_unix_ms = -1;  // every id ever issued has unix ms <= this; -1: none
    Layout layout;
    int64_t datacenter_id = 0;
    int64_t worker_id = -1;
    // Non-empty: (datacenter_id, worker_id) is this node key's claim from the
    // registry or the Citus group.  Empty: a configured identity.
    char registry_node_key[kNodeKeyMaxLen + 1] = "";
    // Version 3; for versions 1 and 2, history_before_records(mark_unix_ms).
    IdentityHistory history;
};

// Whether a node key can be recorded: 1 to kNodeKeyMaxLen bytes, each a
// printable ASCII character other than space.
bool valid_node_key(const char *key, size_t len);

// Big enough for any record (a version 3 one with the longest key and
// numbers is under 900 bytes).
constexpr size_t kStateRecordMaxLen = 1024;

// Writes the record as version 3 text into buf (NUL-terminated); returns its
// length, or 0 if buf is too small or the node key is not valid_node_key.
size_t format_state_record(const StateRecord &rec, char *buf, size_t buflen);

enum class RecordError {
    None,
    BadHeader,    // not a snowflake state file, or an unknown version (1 to 3 are known)
    BadLine,      // a line is missing, misnamed or not a number
    BadChecksum,  // the content does not match its CRC-32
    BadLayout,    // the recorded widths are not a valid layout
};
// What is wrong, as a predicate of "The file": "does not start with ...".
const char *record_error_text(RecordError e);

RecordError parse_state_record(const char *buf, size_t len, StateRecord *out);

// CRC-32 (IEEE, as zlib) of a byte range.
uint32_t crc32(const char *data, size_t len);

// What a start-up with the current settings means for ids issued under the
// recorded ones.
struct ConfigVerdict {
    const char *refused_setting = nullptr;  // non-null: refuse to start; names the (first) setting
    const char *refused[4] = {};            // every refused setting, in layout order, then epoch
    int refused_count = 0;
    bool epoch_moved_earlier = false;       // accepted: ids only grow
    bool node_changed = false;              // accepted: logged
};

ConfigVerdict check_config_change(const StateRecord &stored, const Layout &layout,
                                  int64_t datacenter_id, int64_t worker_id);

// The refused settings as English: "a", "a and b", "a, b and c".  Writes at
// most buflen bytes (NUL-terminated, cut short if it does not fit).
void refused_settings_text(const ConfigVerdict &v, char *buf, size_t buflen);

}  // namespace snowflake
