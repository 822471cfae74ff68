// Layouts passed as SQL arguments, for the IMMUTABLE variants of the
// decoding functions: (..., epoch_ms bigint, datacenter_bits integer,
// worker_bits integer, sequence_bits integer).
#pragma once

#include "../core/layout.hpp"

#include "pg_includes.hpp"

namespace sfpg {

// Largest epoch_ms accepted: 9999-12-31 23:59:59.999 UTC.  The server's own
// epoch must also lie in the past; an explicit layout only describes ids, so
// a future epoch is allowed, but it is bounded so that epoch + timestamp
// never overflows and the epoch is always a valid timestamptz.
constexpr int64 kMaxEpochArgMs = INT64CONST(253402300799999);

// Reads and validates the four layout arguments starting at argument
// `first`.  ERROR (22023) naming the argument when one is invalid.
snowflake::Layout layout_from_args(FunctionCallInfo fcinfo, int first);

}  // namespace sfpg
