// What a node knows about the identities it has issued ids under: since when
// it may have issued ids under its current (datacenter_id, worker_id), and
// the identity it had before its last change with the latest time any id
// under that one carries.
//
// Two promises, both about the ids' own timestamps (unix ms), so that the
// clocks of other servers never enter into them:
//   - since_unix_ms: every id this node has issued, or will issue, under its
//     current identity carries a time at or after it.  A value too early is
//     safe, one too late is a bug; -1 when the node cannot know (a state file
//     from before 1.5 that already had ids, an identity it may have used
//     before outside what it remembers).
//   - retired_until_unix_ms: every id this node has ever issued under the
//     retired identity carries a time at or before it (ids it borrowed ahead
//     of the clock included), and it issues none under it any more unless it
//     takes that identity back.  A value too late is safe, one too early is
//     a bug.
//
// The node remembers two identities: the current one and the retired one.
// `complete` says whether those two are all it has ever issued ids under;
// only then is an identity it moves to known never to have been used.
//
// Pure functions of their arguments, no PostgreSQL: the PostgreSQL layer
// decides when an identity changes and supplies the times.
#pragma once

#ifdef POSTGRES_H
#error "src/core must not see PostgreSQL headers"
#endif

#include <cstdint>

namespace snowflake {

// A (datacenter_id, worker_id); worker_id -1: no identity.
struct NodePair {
    int64_t datacenter_id;
    int64_t worker_id;

    bool none() const { return worker_id < 0; }
    bool operator==(const NodePair &o) const {
        return worker_id == o.worker_id && (worker_id < 0 || datacenter_id == o.datacenter_id);
    }
    bool operator!=(const NodePair &o) const { return !(*this == o); }
};

struct IdentityHistory {
    int64_t since_unix_ms = -1;  // ids of the current identity: unix ms >= this; -1 unknown
    // Ids of the current identity carry a time after this (the registry said
    // another node retired it until then); -1: no such bound.
    int64_t not_before_unix_ms = -1;
    NodePair retired{0, -1};            // the identity before the last change; worker -1: none
    int64_t retired_since_unix_ms = -1; // what since_unix_ms was for it; -1 unknown
    int64_t retired_until_unix_ms = -1; // ids of it: unix ms <= this; -1 with no retired identity
    bool complete = true;               // no identity but the current and the retired one was used

    bool operator==(const IdentityHistory &o) const {
        return since_unix_ms == o.since_unix_ms && not_before_unix_ms == o.not_before_unix_ms &&
               retired.datacenter_id == o.retired.datacenter_id &&
               retired.worker_id == o.retired.worker_id &&
               retired_since_unix_ms == o.retired_since_unix_ms &&
               retired_until_unix_ms == o.retired_until_unix_ms && complete == o.complete;
    }
};

// The history of a node whose state file predates the history (before 1.5):
// with no id issued yet (mark_unix_ms < 0) it knows everything, else nothing.
IdentityHistory history_before_records(int64_t mark_unix_ms);

// The history after the node moved from identity `from` to `to`.
//   floor_unix_ms: every id under `to` from now on carries at least this
//                  time (the caller fences the id word so);
//   until_unix_ms: every id ever issued under `from` carries at most this.
// Moving to an identity the node may have used before keeps the earliest
// time it knows for it: the retired identity's own since, or -1 (unknown)
// once the node has used more identities than it remembers.  Moving to the
// same identity changes nothing.
IdentityHistory history_after_change(const IdentityHistory &h, NodePair from, NodePair to,
                                     int64_t floor_unix_ms, int64_t until_unix_ms);

}  // namespace snowflake
