// The worker-id registry: a node configured with snowflake.registry (a libpq
// connection string) and no snowflake.worker_id claims its
// (datacenter_id, worker_id) once at start from a table on the registry
// server, through a background worker ("snowflake registrar").
#pragma once

namespace sfpg {

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

}  // namespace sfpg
