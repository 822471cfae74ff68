// The node identity from the Citus cluster (snowflake.citus_database): the
// worker that reads a node's Citus group id, so that a node added to the
// cluster issues ids with no per-node setting.  How the group becomes the
// node identity -- a claim of source Citus: second to a configured
// snowflake.worker_id, recorded in snowflake.state under the key "citus:" +
// this node's key and resumed at start by this node only -- is
// node_identity.hpp's business; the mapping of a group to (datacenter_id,
// worker_id) is core/group_identity.hpp's.  This is the reader.
//
// Where it is read: the group id lives in Citus's catalog
// (pg_dist_local_group, with pg_dist_node), readable only inside the
// database where Citus is installed.  The postmaster, which publishes the
// configured identity, cannot read it; a background worker ("snowflake
// citus identity") connected to snowflake.citus_database reads it at start,
// every 2 seconds, and at once when a backend finds no identity (that
// backend waits for it up to 2 seconds).
//
// When the node has one: group g > 0 (Citus's metadata sync sets it on a
// worker it adds), or group 0 while pg_dist_node lists nodes (the
// coordinator of a cluster).  A node not added yet (group 0, no nodes) has
// none, nor has one whose group lies past the layout's node bits, nor a
// database without Citus.  A node whose metadata Citus clears
// (stop_metadata_sync_to_node: group 0, no nodes) gives its identity up.
// A node removed with citus_remove_node keeps its catalog, and so its group
// and identity; added again, it gets a new group and moves to it within one
// read (at most 2 seconds; until then it still issues ids under the old,
// retired group).
//
// Uniqueness: Citus never gives a group id twice in a cluster, so no two
// primaries of one cluster share an identity, and a node that moves never
// moves onto an identity whose ids exist (a standby shares its primary's
// group and issues no ids).  Two Citus clusters number their groups alike:
// ids of different clusters may collide.
#pragma once

namespace sfpg {

// Registers the background worker if the node needs it (while preloading).
void register_citus_reader();

// In a backend that found no identity in Citus mode: wakes the worker and
// waits (up to 2 s) for it to read the group id.  True if the node has an
// identity now.
bool wait_for_citus_identity();

// Before DROP DATABASE of snowflake.citus_database: asks the worker, which
// is connected to it, to exit (SIGTERM), so that the drop does not wait for
// it.  It is started again 10 s later and waits, without a database, until
// the database exists again.  The identity in use stays.
void citus_reader_leave_database();

}  // namespace sfpg
