// The registry's confirmation of the node's pair, and the registry's clock
// beside the node's (core/registry_clock.hpp): the rules the identity
// (node_identity.cpp, identity_*.cpp) and the registrar (registry.cpp)
// share.  Every function takes the IdentityShared the caller guards with
// the generator lock (held exclusively where it writes).
//
//   - A confirmation lasts snowflake.registry_lease from when the node
//     asked, and never past the registry's now() in its answer plus the
//     lease: the registry judges on its own clock, and ids dated later
//     would carry times the registry may already hand to another node.
//   - An answer that gives the pair while no confirmation is in force (a
//     first claim, a reservation after a start, a change or a lapse) sets
//     the grant floor, the registry's now(): ids under the pair carry later
//     times, after every time the registry judged the pair free at.
//   - Every answer measures the skew (the node's clock minus the
//     registry's).  Proven past snowflake.registry_max_skew, it stops ids
//     under the pair until an answer within it; the answer confirms nothing.
// None of it applies where the identity needs no confirmation (no registry,
// a Citus identity, snowflake.issue_without_registry).
#pragma once

#include <cstdint>

#include "../core/registry_clock.hpp"
#include "node_identity.hpp"

namespace sfpg {

// Whether ids under the identity need the registry's confirmation.
bool lease_required(const IdentityShared &id);

// Whether the registry's confirmation covers the clock now, and no proven
// skew stops ids.
bool lease_holds(const IdentityShared &id, int64_t now_unix_ms);

// Ids under the identity carry times after this (-1: no such time): the
// later of the registry's hold-back (history.not_before_unix_ms) and, where
// a confirmation is needed, the grant floor.
int64_t identity_not_before(const IdentityShared &id);

// An answer of the registry that gave or confirmed the pair: measures the
// skew and, within the limit, extends the confirmation (and sets the grant
// floor where none was in force).  Returns false when the skew stops ids.
bool confirm_lease(IdentityShared &id, const snowflake::RegistryReading &r);

// After a change of identity: nothing the registry said holds for the new
// pair.
void forget_confirmation(IdentityShared &id);

}  // namespace sfpg
