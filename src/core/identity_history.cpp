#include "identity_history.hpp"

namespace snowflake {

IdentityHistory history_before_records(int64_t mark_unix_ms) {
    IdentityHistory h;
    h.complete = mark_unix_ms < 0;
    return h;
}

IdentityHistory history_after_change(const IdentityHistory &h, NodePair from, NodePair to,
                                     int64_t floor_unix_ms, int64_t until_unix_ms) {
    if (from == to)
        return h;
    IdentityHistory n = h;
    // Since when `to` may carry ids: the identity left last keeps its own
    // start; one the node knows it never used starts now; any other may
    // have been used before anything the node remembers.
    if (to.none())
        n.since_unix_ms = -1;
    else if (!h.retired.none() && to == h.retired)
        n.since_unix_ms = h.retired_since_unix_ms;
    else if (h.complete)
        n.since_unix_ms = floor_unix_ms;
    else
        n.since_unix_ms = -1;
    n.not_before_unix_ms = -1;
    if (!from.none()) {
        n.retired = from;
        n.retired_since_unix_ms = h.since_unix_ms;
        n.retired_until_unix_ms = until_unix_ms;
        // Used so far: from, the old retired one and the identities before
        // that; remembered now: to and from.
        n.complete = h.complete && (h.retired.none() || h.retired == from || h.retired == to);
    }
    // With no identity before, the retired one stays the last one left,
    // unless the node takes it back.
    else if (to == h.retired) {
        n.retired = NodePair{0, -1};
        n.retired_since_unix_ms = -1;
        n.retired_until_unix_ms = -1;
    }
    return n;
}

}  // namespace snowflake
