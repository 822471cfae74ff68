// The worker-id registry: a node configured with snowflake.registry (a libpq
// connection string) and no snowflake.worker_id claims its
// (datacenter_id, worker_id) from a table on the registry server, through a
// background worker ("snowflake registrar") that then renews the claim every
// minute.  The claim is recorded in snowflake.state with the node's key, so
// the node resumes it after a crash or a restart, with or without the
// registry.
#pragma once

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

}  // namespace sfpg
