// The durable high-water mark in the WAL, through a custom WAL resource
// manager (PostgreSQL 15+), so that physical standbys and point-in-time
// restores learn every mark the primary reserved.  A promoted standby or a
// restored backup then never reissues an id the old primary issued, even with
// its clock behind.  One record per reservation (about two a second), never
// one per id.
#pragma once

#include <cstdint>

#include "../core/state_record.hpp"

namespace sfpg {

// Registers the resource manager (while preloading; no-op before PG15).
void register_wal_mark_rmgr();

// WAL-logs the record's mark, with the layout, identity and identity history
// it was reserved under, and flushes it.  Called by the reserver after the
// state file holds the record and before the mark is published to backends.
// Returns the record's end (0 before PostgreSQL 15).
uint64_t log_mark(const snowflake::StateRecord &rec);

// Waits until the synchronous standbys (synchronous_standby_names), if any,
// have flushed the WAL up to `lsn`: a commit waits for them, but a
// SELECT snowflake_nextval() writes no commit, so the reserver must, or a
// failover could lose a mark whose ids clients already hold.  Returns false
// if the wait was cut short (the reserver is terminating): the mark must not
// be published then.
bool wait_for_sync_standbys(uint64_t lsn);

}  // namespace sfpg
