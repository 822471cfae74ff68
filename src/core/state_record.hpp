// The durable state file's contents: the high-water mark and the epoch,
// layout and node identity it was issued under, as checksummed text.
//
// Two versions of the text exist.  Version 1 (a configured identity) has the
// seven numeric lines; version 2 adds one line, registry_node_key, written
// when the identity is a claim from snowflake.registry: the key the claim was
// made under, so that a restart of that node (and only of that node) resumes
// it.  An identity from the Citus group id (snowflake.citus_database) is
// recorded the same way, under the key "citus:" followed by the node's key.
// A version 1 file is never a registry claim.  Both are read; a node with
// a configured identity keeps writing version 1.
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
    // registry (version 2).  Empty: a configured identity (version 1).
    char registry_node_key[kNodeKeyMaxLen + 1] = "";
};

// Whether a node key can be recorded: 1 to kNodeKeyMaxLen bytes, each a
// printable ASCII character other than space.
bool valid_node_key(const char *key, size_t len);

// Big enough for any record.
constexpr size_t kStateRecordMaxLen = 1024;

// Writes the record as text into buf (NUL-terminated); returns its length,
// or 0 if buf is too small or the node key is not valid_node_key.
size_t format_state_record(const StateRecord &rec, char *buf, size_t buflen);

enum class RecordError {
    None,
    BadHeader,    // not a snowflake state file, or an unknown version (1 and 2 are known)
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
