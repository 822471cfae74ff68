// The durable high-water mark: reserving time ahead of the ids, and the
// background worker ("snowflake reserver") that keeps the reservation ahead
// so that no backend waits for an fsync.
#pragma once

#include <cstdint>

namespace sfpg {

struct SharedState;

// How far ahead of max(wall clock, last id) the mark is reserved, and how
// little of it may remain before the reserver extends it.  With these, a
// node issuing ids makes about 1000 / (kReserveWindowMs - kReserveLowWaterMs)
// = 2 durable writes per second, an idle one none; after a crash the clock may be behind the
// mark by at most kReserveWindowMs.  At start nothing is reserved beyond the
// state file's mark: the first id waits (a few ms) for the reserver, so that
// every reservation is both in the state file and in the WAL.
constexpr int64_t kReserveWindowMs = 1000;
constexpr int64_t kReserveLowWaterMs = 500;
constexpr long kReserverTickMs = 50;

// Extends the reservation if it is running low: the new mark is written to
// the state file and the WAL *before* it is published to backends.  Runs in
// the reserver (and in a single-user backend, which has none).  Takes and
// releases the generator lock itself; ereports ERROR on I/O failure.
// Returns whether the node was active (ids issued or a reservation wanted)
// since the last call.
bool reserve_ahead(SharedState *s);

// on_shmem_exit callback of the postmaster: on a clean exit, sets the state
// file's mark to the last id's millisecond (or, on a standby, the last mark
// replayed) once no process can issue ids any more.
void record_final_mark(int code, uintptr_t arg);  // arg: an unused Datum

// Registers the reserver background worker (while preloading).
void register_reserver();

// Registers a snowflake background worker that needs shared memory and runs
// once recovery has finished: `function` is its exported entry point, `name`
// its name and type, restarted `restart_s` seconds after exiting with code 1.
// extra_flags: BGWORKER_BACKEND_DATABASE_CONNECTION for one that connects to
// a database.
void register_worker(const char *name, const char *function, int restart_s, int extra_flags = 0);

// Wakes the reserver (a backend found the reservation used up).
void wake_reserver(SharedState *s);

}  // namespace sfpg


