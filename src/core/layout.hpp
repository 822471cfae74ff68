// The bit layout of a snowflake id and the pure arithmetic on it.
//
//   0 | timestamp (ms since epoch) | datacenter_id | worker_id | sequence
//
// Everything here is constexpr-friendly integer arithmetic: no allocation,
// no exceptions, no PostgreSQL.  The PostgreSQL layer turns the error codes
// returned here into ereports.
#pragma once

#ifdef POSTGRES_H
#error "src/core must not see PostgreSQL headers"
#endif

#include <cstdint>

namespace snowflake {

constexpr int64_t kTwitterEpochMs = 1288834974657;  // 2010-11-04 01:42:54.657 UTC
constexpr int kIdBits = 63;                          // the sign bit is never used
constexpr int kMinTimestampBits = 35;                // ~1.09 years of ms
constexpr int kMinSequenceBits = 1;

enum class LayoutError {
    None,
    NegativeWidth,       // a width below zero
    SequenceTooNarrow,   // sequence_bits < 1
    TimestampTooNarrow,  // the widths leave fewer than 35 timestamp bits
};

// Human-readable reason for a LayoutError (static storage, never null).
const char *layout_error_text(LayoutError e);

// Checks a set of widths.  Valid widths are exactly those accepted here.
LayoutError validate_widths(int datacenter_bits, int worker_bits, int sequence_bits);

struct Layout {
    int64_t epoch_ms = kTwitterEpochMs;  // Unix ms of timestamp field 0
    int datacenter_bits = 5;
    int worker_bits = 5;
    int sequence_bits = 12;

    int timestamp_bits() const { return kIdBits - datacenter_bits - worker_bits - sequence_bits; }
    int worker_shift() const { return sequence_bits; }
    int datacenter_shift() const { return sequence_bits + worker_bits; }
    int timestamp_shift() const { return sequence_bits + worker_bits + datacenter_bits; }

    int64_t max_sequence() const { return (int64_t{1} << sequence_bits) - 1; }
    int64_t max_worker_id() const { return (int64_t{1} << worker_bits) - 1; }
    int64_t max_datacenter_id() const { return (int64_t{1} << datacenter_bits) - 1; }
    // Largest timestamp field (ms since epoch) an id can carry.
    int64_t max_timestamp() const { return (int64_t{1} << timestamp_bits()) - 1; }
    // Unix ms of the last millisecond the layout can represent.
    int64_t lifetime_end_unix_ms() const { return epoch_ms + max_timestamp(); }

    // The node bits (datacenter and worker, already shifted into place).
    int64_t node_bits(int64_t datacenter_id, int64_t worker_id) const {
        return (datacenter_id << datacenter_shift()) | (worker_id << worker_shift());
    }
    // Caller guarantees every part is in range.
    int64_t compose(int64_t timestamp, int64_t node, int64_t sequence) const {
        return (timestamp << timestamp_shift()) | node | sequence;
    }

    bool operator==(const Layout &o) const {
        return epoch_ms == o.epoch_ms && datacenter_bits == o.datacenter_bits &&
               worker_bits == o.worker_bits && sequence_bits == o.sequence_bits;
    }
    bool operator!=(const Layout &o) const { return !(*this == o); }
};

struct IdParts {
    int64_t unix_ms;      // epoch_ms + timestamp field
    int64_t timestamp;    // the raw timestamp field (ms since epoch)
    int32_t datacenter_id;
    int32_t worker_id;
    int32_t sequence;
};

// Decodes a non-negative id.  Returns false for a negative id.
bool decompose(const Layout &layout, int64_t id, IdParts *out);

// Which part of an id did not fit the layout (compose_parts).
enum class ComposeError {
    None,
    BeforeEpoch,           // unix_ms < epoch_ms
    PastLifetime,          // the timestamp field would need more than timestamp_bits
    DatacenterOutOfRange,  // outside 0 .. max_datacenter_id()
    WorkerOutOfRange,      // outside 0 .. max_worker_id()
    SequenceOutOfRange,    // outside 0 .. max_sequence()
};

// Short lowercase reason (static storage, never null).
const char *compose_error_text(ComposeError e);

// Compose from parts, range-checking each one in the order of the id's
// fields (time, datacenter, worker, sequence) and naming the first that does
// not fit; *out is written only on success.  Ids never wrap.
ComposeError compose_parts(const Layout &layout, int64_t unix_ms, int64_t datacenter_id,
                           int64_t worker_id, int64_t sequence, int64_t *out);

// compose_parts, as a yes or no.
bool compose_checked(const Layout &layout, int64_t unix_ms, int64_t datacenter_id,
                     int64_t worker_id, int64_t sequence, int64_t *out);

// Smallest / largest id any node can produce in the millisecond unix_ms.
// Returns false when unix_ms is before the epoch or past the lifetime.
bool min_id_for_ms(const Layout &layout, int64_t unix_ms, int64_t *out);
bool max_id_for_ms(const Layout &layout, int64_t unix_ms, int64_t *out);

}  // namespace snowflake
