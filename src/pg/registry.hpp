// The worker-id registry: a node configured with snowflake.registry (a libpq
// connection string) and no snowflake.worker_id claims its
// (datacenter_id, worker_id) from a table on the registry server, through a
// background worker ("snowflake registrar") that then renews the claim every
// minute.  How a claim becomes the node identity, and survives restarts in
// snowflake.state, is node_identity.hpp's business; this is the client.
#pragma once

namespace sfpg {

// Registers the registrar background worker if the node needs it.
void register_registrar();

}  // namespace sfpg
