// The generator's shared-memory struct and its lifecycle hooks.
#pragma once

#include "../core/generator.hpp"
#include "../core/state_record.hpp"
#include "node_identity.hpp"

#include "pg_includes.hpp"

namespace sfpg {

// One process's counters: written only by that process (plain stores, no
// locked instruction), summed by snowflake_status.  A slot outlives the
// process that used it: the next process with the same PGPROC number carries
// on counting, so the sums are "since start".
struct alignas(PG_CACHE_LINE_SIZE) BackendCounters {
    pg_atomic_uint64 ids_issued;
    pg_atomic_uint64 sequence_waits;  // waits for the next millisecond
    pg_atomic_uint64 last_id;         // int64; -1: none yet
};

// Lives in shared memory, aligned to a cache line, followed by one
// BackendCounters per process that can run SQL (n_counters).
struct SharedState {
    // The id word (core/id_word.hpp) every id is taken from, lock-free.  It is
    // the only shared line written per id, so it sits alone.
    alignas(PG_CACHE_LINE_SIZE) pg_atomic_uint64 word;

    // Read with every id, written rarely: they stay in every CPU's cache.
    alignas(PG_CACHE_LINE_SIZE) pg_atomic_uint64 reserved_ms;  // int64: the durable mark
    // Node bits (Layout::node_bits) of the identity ids are issued under;
    // -1 (as int64): none yet.  Written with `identity` under the lock
    // (identity_switch.cpp).
    pg_atomic_uint64 node;
    bool use_fetch_add;  // fixed at start: see snowflake::fetch_add_safe
    int n_counters;

    // The slow path: clock policies, reservations, the first id after start.
    alignas(PG_CACHE_LINE_SIZE) LWLock lock;
    snowflake::GeneratorState gen;  // guarded by lock
    IdentityShared identity;  // guarded by lock (node_identity.hpp)
    int lock_tranche_id;
    bool reservation_wanted;     // a backend waits for the mark (guarded by lock)
    uint64_t durable_writes;     // state-file writes since start (guarded by lock)
    int64_t file_mark_unix_ms;   // the mark the state file holds now; -1: none (guarded by lock)

    alignas(PG_CACHE_LINE_SIZE) Latch *reserver_latch;  // set by the reserver, read to wake it
    Latch *registrar_latch;  // set by the registrar, read to wake it
    // Set by the worker that reads the Citus group id (citus_identity.hpp),
    // read to wake it (and its pid, to ask it to leave its database).
    Latch *citus_reader_latch;
    int citus_reader_pid;
    // Its last attempt to connect to snowflake.citus_database did not come
    // back, or the database is being dropped: its next start watches for the
    // database instead of connecting (guarded by lock; citus_identity.cpp).
    bool citus_database_in_doubt;
    // The reserver is waiting for synchronous standbys to confirm a mark (for
    // the message of a backend that gives up waiting for it).
    volatile bool reserver_waits_for_standbys;

    BackendCounters *counters() { return reinterpret_cast<BackendCounters *>(this + 1); }
};

// Null until shared memory is attached (i.e. when not preloaded).
extern SharedState *g_shared;

// Registers the shared-memory request and startup hooks (called while preloading).
void install_shmem_hooks();

// Reports at `elevel` (ERROR at start, FATAL in redo) that the configured
// epoch or widths (v, from check_config_change) would make new ids collide
// with ids issued under `recorded`: from the state file, or from_wal a mark
// replayed from the WAL.
void refuse_config_change(int elevel, const snowflake::StateRecord &recorded,
                          const snowflake::ConfigVerdict &v, bool from_wal);

// Raises the word to a mark replayed from the WAL: the mark's millisecond
// and every one before it count as used up.  The caller holds the lock.
// Returns false if the word was already there.
bool raise_word_to_mark(SharedState *s, int64_t mark_ms);

// This process's counters (resolved on first use: a process keeps its PGPROC
// for life).
extern BackendCounters *g_my_counters;
void resolve_my_counters();
inline BackendCounters *my_counters() {
    if (unlikely(g_my_counters == nullptr))
        resolve_my_counters();
    return g_my_counters;
}

// The record of the current configuration with the given mark, and the
// generation of the identity it records (IdentityShared::generation).
snowflake::StateRecord current_record(int64_t mark_unix_ms, uint32_t *generation = nullptr);

}  // namespace sfpg
