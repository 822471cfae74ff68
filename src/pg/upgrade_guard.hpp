// pg_upgrade and the durable mark.
//
// pg_upgrade copies a cluster's tables but not snowflake.state, the
// high-water mark of the ids the old cluster issued.  A new cluster started
// without it would issue ids from its wall clock, which may be behind ids
// the old cluster issued (under `borrow` it runs up to
// max_clock_backward_ms ahead of its clock, and its clock may have been
// ahead before a correction).  The postmaster cannot read the catalogs to
// see that the extension was in use, but pg_upgrade always loads the library
// into the new cluster while it upgrades one that has the extension: at its
// check that every library is loadable (LOAD, in a backend), and at every
// start if the new configuration preloads it.  Both run with
// IsBinaryUpgrade set.  If the data directory has no state file then, a
// marker file records that one is expected, and a normal start refuses until
// the old cluster's snowflake.state has been copied in (or the marker is
// deleted: an old cluster that never issued an id has no state file).  The
// marker is written whether or not the state file is there already (Debian's
// pg_upgradecluster hook copies it before pg_upgrade runs): the first normal
// start also refuses a configured node identity other than the one the state
// file records, which a configuration written anew for the new major could
// silently change.
//
// pg_upgrade starts the OLD cluster in binary-upgrade mode too; it is told
// apart by pg_upgrade's output directory, which only the new cluster's data
// directory has (PostgreSQL 15 and later), and nothing is written into it.
#pragma once

#include "../core/state_record.hpp"

namespace sfpg {

constexpr const char *kUpgradeMarkerFile = "snowflake.pg_upgrade";

// While pg_upgrade runs this server (IsBinaryUpgrade) as the new cluster:
// writes the marker into the data directory (the working directory) if it is
// not there yet.  Elsewhere (the old cluster included) a no-op.  Never throws; errors are reported as ereport(ERROR).
void note_binary_upgrade();

// At a normal start, in the postmaster, after reading the state file
// (stored: its record, null if there was none).  With the marker present and
// no state file, or a state file recording another node identity than the
// one configured (snowflake.worker_id set): ereport(ERROR), which stops the
// server.  Otherwise the state file was carried over, so the marker is
// removed (and a LOG line says so).
void check_upgrade_marker(const snowflake::StateRecord *stored);

}  // namespace sfpg
