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

// The node identity the id path should use.  Returns false (and ereports
// nothing) if none is available yet; *why then says why, for the error.
bool node_identity(int *datacenter_id, int *worker_id, const char **why);

}  // namespace sfpg
