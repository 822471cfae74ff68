// How the node identity in shared memory changes (node_identity.cpp,
// identity_claim.cpp, identity_block.cpp share these).  Internal to the
// identity's files: the rest of the module goes through node_identity.hpp.
#pragma once

#include "node_identity.hpp"
#include "shared_state.hpp"

namespace sfpg {

// Sets the identity in the postmaster, while it sets up shared memory: no
// other process exists and the id word is set up afterwards
// (identity_settle_at_start).
void set_identity_at_start(SharedState *s, int datacenter_id, int worker_id,
                           IdentitySource source);

// Processes whose fetch-and-add may still land on the word after a change.
int64_t max_adders(const SharedState *s);

// Changes the identity ids are issued under, on a running node; the caller
// holds the lock exclusively.  In this order:
//   - the usable mark comes down to the word's millisecond, so that the
//     first id of the new identity waits for a reservation, which records
//     the new identity and its history in the state file and the WAL before
//     the id exists (reserve_ahead refuses to publish a mark written under
//     an identity that changed meanwhile);
//   - snowflake::switch_identity fences the word at the clock, publishes the
//     node and retires the word: an id another process was about to take
//     under the old identity is not issued, and every id of the new one is
//     in a millisecond after the fence (identity_since);
//   - the history records the old identity as retired, until the latest
//     millisecond any of its ids can carry: the word's after the change, or
//     the usable mark if that is lower.
void change_identity(SharedState *s, int datacenter_id, int worker_id, IdentitySource source);

// Whether ids may be issued under the identity now (see blocked_refused).
bool usable_now(const IdentityShared &id);

// Publishes the node bits, or -1 while the identity is blocked; the caller
// holds the lock exclusively.  Stopping retires the word, so that an add or
// swap prepared before fails; resuming fences it at the not-before time, so
// that every id carries a later one.
void publish_usable(SharedState *s);

// snowflake.registry_lease and snowflake.issue_without_registry, as this
// process (the reserver) reads them, into shared memory; the lock is held
// exclusively.  A shorter lease applies from the next confirmation on;
// turning the opt-in off stops ids at once until the registry confirms.
void set_registry_settings_locked(SharedState *s);

}  // namespace sfpg
