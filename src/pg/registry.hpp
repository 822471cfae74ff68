// The worker-id registry: a node configured with snowflake.registry (a libpq
// connection string) and no snowflake.worker_id claims its
// (datacenter_id, worker_id) from a table on the registry server, through a
// background worker ("snowflake registrar") that then renews the claim every
// minute.  The claim is recorded in snowflake.state with the node's key, so
// the node resumes it after a crash or a restart, with or without the
// registry.
#pragma once

#include <cstddef>

namespace snowflake {
struct StateRecord;
}

namespace sfpg {

struct SharedState;

extern char *guc_registry;

// Defines snowflake.registry (postmaster context; call while preloading).
void define_registry_setting();

// Registers the registrar background worker if the node needs it.
void register_registrar();

// Whether snowflake.registry is set.
bool registry_configured();

// The node identity in use (from shared memory).  Returns false if there is
// none; *why then says why when the registry is the reason (else null).
bool node_identity(int *datacenter_id, int *worker_id, const char **why);

// At start and after every crash restart, in the postmaster once the state
// file is read (shared memory not yet shared, no lock needed): if the node
// takes its identity from the registry and `stored` is this node's own claim
// under the configured widths, the claim becomes the node identity at once.
void resume_recorded_claim(SharedState *s, const snowflake::StateRecord &stored);

// Puts the node identity in use, and whether it is a registry claim (with the
// node key), into a record about to be written to the state file.
void record_identity(snowflake::StateRecord *r);

// In the reserver, at every tick: writes the state file again (same mark)
// when the registrar adopted a claim not yet recorded in it.
void record_new_claim(SharedState *s);

// ---- claims: the registrar's, and those of other identity sources ----------
// (the Citus group id, citus_identity.cpp).  A claim is an identity that is
// not configured: recorded in snowflake.state with the key of its source,
// resumed at start by the node whose key it is, and always second to a
// configured snowflake.worker_id.

enum class RegistryState : int;

// This node's key: system identifier, host name and port.
void this_node_key(char *buf, size_t len);

// Whether a configured identity is in use (then no claim is ever adopted).
bool configured_identity(SharedState *s);

// The claim the node holds, if any.
bool held_claim(SharedState *s, int *datacenter_id, int *worker_id);

// Records why there is no claim, where backends can see it.  A node that
// holds a claim keeps it (and its state).
void note_claim_failure(SharedState *s, RegistryState state, const char *error);

enum class Adopted { New, Same, Moved, ConfiguredWins };

// Makes (datacenter_id, worker_id) the node identity as the claim of `key`,
// unless a configured identity is in use: decided under the lock, so a
// worker_id set and reloaded while the claim was on its way wins.
// *old_* receive the identity it replaced.
Adopted adopt_claim(SharedState *s, int datacenter_id, int worker_id, const char *key,
                    int *old_datacenter_id, int *old_worker_id);

// Gives up the claim the node holds, if any (the node has no identity
// then), and records why there is none.  The reserver records it in the
// state file, so that no restart resumes it.
void drop_claim(SharedState *s, RegistryState state, const char *why);

// In the postmaster at start: makes `stored`, the claim of `key` recorded in
// the state file, the node identity (no lock needed).  False if it does not
// fit the configured widths.
bool resume_claim(SharedState *s, const snowflake::StateRecord &stored, const char *key);

}  // namespace sfpg
