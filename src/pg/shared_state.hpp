// The generator's shared-memory struct and its lifecycle hooks.
#pragma once

#include "../core/generator.hpp"
#include "../core/state_record.hpp"

#include "pg_includes.hpp"

namespace sfpg {

enum class RegistryState : int { None = 0, Waiting, Claimed, Exhausted };

// Lives in shared memory, aligned to a cache line.  Everything the per-id
// path touches (the lock pointer and the generator state with its counters)
// shares the first line(s); the reserver's bookkeeping sits on its own line
// so its updates do not bounce the hot one.
struct SharedState {
    // The generator LWLock, embedded in front of the state it guards: under
    // contention the lock word and the per-id fields move between CPUs as one
    // cache line, not two.
    LWLock lock;
    snowflake::GeneratorState gen;      // guarded by lock
    // The node identity ids are issued under (guarded by lock; read by every
    // call, written rarely, so it stays cached).  Published by the
    // postmaster at start, the reserver after every reload, or the
    // registrar's claim -- never taken from a backend's own copy of the
    // settings, which a running statement would keep after a reload.
    int32_t node_datacenter_id;
    int32_t node_worker_id;             // -1: no identity (yet)
    int lock_tranche_id;
    alignas(64) Latch *reserver_latch;  // set by the reserver, read to wake it
    bool closed;                  // shutting down: the reserver no longer extends
    bool reservation_wanted;      // a backend waits for the mark (guarded by lock)
    uint64_t durable_writes;      // state-file writes since start (guarded by lock)
    int64_t durable_mark_unix_ms; // what the state file says now (guarded by lock)

    // snowflake.registry's progress (guarded by lock).
    alignas(64) RegistryState registry_state;
    char registry_error[256];
    // The node identity is the registry claim of registry_node_key (set by
    // the registrar or resumed from the state file; cleared whenever a
    // configured identity is published, which always wins).
    bool identity_claimed;
    char registry_node_key[snowflake::kNodeKeyMaxLen + 1];
    // Claims adopted / written to the state file by the reserver.
    uint32_t claims_adopted;
    uint32_t claims_recorded;
};

// Null until shared memory is attached (i.e. when not preloaded).
extern SharedState *g_shared;

// Registers the shared-memory request and startup hooks (called while preloading).
void install_shmem_hooks();

// Publishes the identity from this process's settings (unless the registry
// provides it).  Takes the lock unless `locked` is false (postmaster at start).
void publish_configured_identity(SharedState *s, bool take_lock);

// The record of the current configuration with the given mark.
snowflake::StateRecord current_record(int64_t mark_unix_ms);

}  // namespace sfpg
