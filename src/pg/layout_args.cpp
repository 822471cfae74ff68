#include "layout_args.hpp"

namespace sfpg {

namespace {

[[noreturn]] void bad_width(const char *name, int32 value, const char *why) {
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("invalid %s: %d", name, value), errdetail("%s", why)));
    pg_unreachable();
}

}  // namespace

snowflake::Layout layout_from_args(FunctionCallInfo fcinfo, int first) {
    snowflake::Layout l;
    l.epoch_ms = PG_GETARG_INT64(first);
    l.datacenter_bits = PG_GETARG_INT32(first + 1);
    l.worker_bits = PG_GETARG_INT32(first + 2);
    l.sequence_bits = PG_GETARG_INT32(first + 3);

    if (l.epoch_ms < 0 || l.epoch_ms > kMaxEpochArgMs)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("invalid epoch_ms: %lld", static_cast<long long>(l.epoch_ms)),
                        errdetail("epoch_ms must lie between 0 (1970-01-01 00:00:00 UTC) and "
                                  "%lld (9999-12-31 23:59:59.999 UTC).",
                                  static_cast<long long>(kMaxEpochArgMs))));
    const char *negative = "Widths cannot be negative.";
    if (l.datacenter_bits < 0)
        bad_width("datacenter_bits", l.datacenter_bits, negative);
    if (l.worker_bits < 0)
        bad_width("worker_bits", l.worker_bits, negative);
    if (l.sequence_bits < 0)
        bad_width("sequence_bits", l.sequence_bits, negative);
    switch (snowflake::validate_widths(l.datacenter_bits, l.worker_bits, l.sequence_bits)) {
    case snowflake::LayoutError::None:
        break;
    case snowflake::LayoutError::SequenceTooNarrow:
        bad_width("sequence_bits", l.sequence_bits, "sequence_bits must be at least 1.");
    default:
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("invalid layout: datacenter_bits + worker_bits + sequence_bits = %lld",
                        static_cast<long long>(l.datacenter_bits) + l.worker_bits +
                            l.sequence_bits),
                 errdetail("The widths must leave at least %d timestamp bits, so they add up "
                           "to at most %d.",
                           snowflake::kMinTimestampBits,
                           snowflake::kIdBits - snowflake::kMinTimestampBits)));
    }
    return l;
}

}  // namespace sfpg
