// Layouts for the unit tests.
#pragma once

#include <cstdint>

#include "layout.hpp"

namespace snowflake_test {

inline snowflake::Layout make_layout(int dc, int worker, int seq,
                                     int64_t epoch = snowflake::kTwitterEpochMs) {
    snowflake::Layout l;
    l.epoch_ms = epoch;
    l.datacenter_bits = dc;
    l.worker_bits = worker;
    l.sequence_bits = seq;
    return l;
}

}  // namespace snowflake_test
