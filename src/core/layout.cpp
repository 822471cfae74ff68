#include "layout.hpp"

namespace snowflake {

const char *layout_error_text(LayoutError e) {
    switch (e) {
    case LayoutError::None:
        return "valid";
    case LayoutError::NegativeWidth:
        return "a width cannot be negative";
    case LayoutError::SequenceTooNarrow:
        return "sequence_bits must be at least 1";
    case LayoutError::TimestampTooNarrow:
        return "datacenter_bits + worker_bits + sequence_bits must leave at least 35 timestamp "
               "bits (at most 28 in total)";
    }
    return "unknown layout error";
}

LayoutError validate_widths(int datacenter_bits, int worker_bits, int sequence_bits) {
    if (datacenter_bits < 0 || worker_bits < 0 || sequence_bits < 0)
        return LayoutError::NegativeWidth;
    if (sequence_bits < kMinSequenceBits)
        return LayoutError::SequenceTooNarrow;
    // Sum in 64 bits so absurd inputs cannot overflow the check itself.
    int64_t used = int64_t{datacenter_bits} + worker_bits + sequence_bits;
    if (kIdBits - used < kMinTimestampBits)
        return LayoutError::TimestampTooNarrow;
    return LayoutError::None;
}

bool decompose(const Layout &layout, int64_t id, IdParts *out) {
    if (id < 0)
        return false;
    const uint64_t u = static_cast<uint64_t>(id);
    out->timestamp = static_cast<int64_t>(u >> layout.timestamp_shift());
    out->unix_ms = layout.epoch_ms + out->timestamp;
    out->datacenter_id =
        static_cast<int32_t>((u >> layout.datacenter_shift()) & layout.max_datacenter_id());
    out->worker_id = static_cast<int32_t>((u >> layout.worker_shift()) & layout.max_worker_id());
    out->sequence = static_cast<int32_t>(u & layout.max_sequence());
    return true;
}

const char *compose_error_text(ComposeError e) {
    switch (e) {
    case ComposeError::None:
        return "valid";
    case ComposeError::BeforeEpoch:
        return "the time is before the epoch";
    case ComposeError::PastLifetime:
        return "the time is past the end of the layout's lifetime";
    case ComposeError::DatacenterOutOfRange:
        return "datacenter_id does not fit the layout";
    case ComposeError::WorkerOutOfRange:
        return "worker_id does not fit the layout";
    case ComposeError::SequenceOutOfRange:
        return "sequence does not fit the layout";
    }
    return "unknown compose error";
}

ComposeError compose_parts(const Layout &layout, int64_t unix_ms, int64_t datacenter_id,
                           int64_t worker_id, int64_t sequence, int64_t *out) {
    // Subtract in unsigned arithmetic: with unix_ms >= epoch_ms the difference
    // is exact there, while the signed subtraction could overflow.
    if (unix_ms < layout.epoch_ms)
        return ComposeError::BeforeEpoch;
    const uint64_t ts = static_cast<uint64_t>(unix_ms) - static_cast<uint64_t>(layout.epoch_ms);
    if (ts > static_cast<uint64_t>(layout.max_timestamp()))
        return ComposeError::PastLifetime;
    if (datacenter_id < 0 || datacenter_id > layout.max_datacenter_id())
        return ComposeError::DatacenterOutOfRange;
    if (worker_id < 0 || worker_id > layout.max_worker_id())
        return ComposeError::WorkerOutOfRange;
    if (sequence < 0 || sequence > layout.max_sequence())
        return ComposeError::SequenceOutOfRange;
    *out = layout.compose(static_cast<int64_t>(ts), layout.node_bits(datacenter_id, worker_id),
                          sequence);
    return ComposeError::None;
}

bool compose_checked(const Layout &layout, int64_t unix_ms, int64_t datacenter_id,
                     int64_t worker_id, int64_t sequence, int64_t *out) {
    return compose_parts(layout, unix_ms, datacenter_id, worker_id, sequence, out) ==
           ComposeError::None;
}

bool min_id_for_ms(const Layout &layout, int64_t unix_ms, int64_t *out) {
    return compose_checked(layout, unix_ms, 0, 0, 0, out);
}

bool max_id_for_ms(const Layout &layout, int64_t unix_ms, int64_t *out) {
    return compose_checked(layout, unix_ms, layout.max_datacenter_id(), layout.max_worker_id(),
                           layout.max_sequence(), out);
}

}  // namespace snowflake
