// A node identity numbered by its cluster: the Citus group id (coordinator
// 0, workers 1..n in the order they were added, never reused) as the node's
// (datacenter_id, worker_id).
//
// The group id is the node number across all the node bits of the layout:
// its high bits are the datacenter_id, its low worker_bits bits the
// worker_id.  So distinct groups always give distinct identities, group g
// is worker g of datacenter 0 while g < 2^worker_bits (the default layout:
// groups 0..31 are datacenter 0, 32..63 datacenter 1, ...), and the layout
// numbers 2^(datacenter_bits + worker_bits) groups, 1024 by default.  A
// group past that has no identity: no wrap, no sharing.
#pragma once

#ifdef POSTGRES_H
#error "src/core must not see PostgreSQL headers"
#endif

#include <cstdint>

#include "layout.hpp"

namespace snowflake {

// How many groups the layout numbers (2^(datacenter_bits + worker_bits)).
int64_t groups_in_layout(const Layout &layout);

// The identity of group `group`.  Returns false (leaving the outputs alone)
// for a negative group or one past groups_in_layout.
bool identity_of_group(const Layout &layout, int64_t group, int64_t *datacenter_id,
                       int64_t *worker_id);

}  // namespace snowflake
