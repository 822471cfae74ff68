// The durable high-water mark in the WAL, through a custom WAL resource
// manager (PostgreSQL 15+), so that physical standbys and point-in-time
// restores learn every mark the primary reserved.  A promoted standby or a
// restored backup then never reissues an id the old primary issued, even with
// its clock behind.  One record per reservation (about two a second), never
// one per id.
#pragma once

#include <cstdint>

namespace sfpg {

// Registers the resource manager (while preloading; no-op before PG15).
void register_wal_mark_rmgr();

// WAL-logs `mark_unix_ms` and flushes it.  Called by the reserver after the
// state file holds the mark and before the mark is published to backends.
void log_mark(int64_t mark_unix_ms);

}  // namespace sfpg
