// Shared memory: request, initialisation, and loading the durable mark.
#include "settings.hpp"
#include "shared_state.hpp"
#include "state_file.hpp"

#include "pg_includes.hpp"
#include "registry.hpp"
#include "reservation.hpp"

namespace sfpg {

SharedState *g_shared = nullptr;

namespace {

#if PG_VERSION_NUM >= 150000
shmem_request_hook_type prev_shmem_request_hook = nullptr;
#endif
shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

Size shared_size() {
    // Room to align the struct to a cache line ourselves: ShmemInitStruct
    // only guarantees MAXALIGN.
    return add_size(sizeof(SharedState), PG_CACHE_LINE_SIZE);
}

void request_shmem() { RequestAddinShmemSpace(shared_size()); }

#if PG_VERSION_NUM >= 150000
void shmem_request() {
    if (prev_shmem_request_hook)
        prev_shmem_request_hook();
    request_shmem();
}
#endif

// Loads the state file and derives the start state.  Runs in the postmaster
// at start and after every crash restart, before any backend can ask for an
// id; an ERROR here stops the server (FATAL), which is what a corrupt file or
// an unsafe configuration change must do.
void load_mark(SharedState *s) {
    snowflake::StateRecord stored;
    int64_t mark_unix = -1;
    if (read_state_file(&stored)) {
        resume_recorded_claim(s, stored);
        snowflake::ConfigVerdict v = snowflake::check_config_change(
            stored, g_layout, s->node_datacenter_id, s->node_worker_id);
        if (v.refused_setting)
            ereport(ERROR,
                    (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                     errmsg("%s differs from the value the ids of this node were issued under",
                            v.refused_setting),
                     errdetail("snowflake.state records epoch %lld and layout %d/%d/%d "
                               "(datacenter/worker/sequence bits); the configuration has epoch "
                               "%lld and layout %d/%d/%d. New ids could collide with ids "
                               "already issued.",
                               static_cast<long long>(stored.layout.epoch_ms),
                               stored.layout.datacenter_bits, stored.layout.worker_bits,
                               stored.layout.sequence_bits,
                               static_cast<long long>(g_layout.epoch_ms),
                               g_layout.datacenter_bits, g_layout.worker_bits,
                               g_layout.sequence_bits),
                     errhint("Restore the previous value of %s, or follow \"Changing the epoch "
                             "or layout\" in the snowflake README.",
                             v.refused_setting)));
        if (v.node_changed)
            ereport(LOG, (errmsg("snowflake node identity changed from datacenter %lld worker "
                                 "%lld to datacenter %d worker %d",
                                 static_cast<long long>(stored.datacenter_id),
                                 static_cast<long long>(stored.worker_id), s->node_datacenter_id,
                                 s->node_worker_id)));
        if (v.epoch_moved_earlier)
            ereport(LOG, (errmsg("snowflake.epoch moved earlier, from %lld to %lld",
                                 static_cast<long long>(stored.layout.epoch_ms),
                                 static_cast<long long>(g_layout.epoch_ms))));
        mark_unix = stored.mark_unix_ms;
    }
    const int64_t mark_ms = mark_unix < 0 ? -1 : mark_unix - g_layout.epoch_ms;
    snowflake::start_after_mark(&s->gen, mark_ms);
    s->durable_mark_unix_ms = mark_unix;
    // Nothing is reserved beyond the mark yet: the reserver extends it (state
    // file and WAL) before the first id.
}

void shmem_startup() {
    if (prev_shmem_startup_hook)
        prev_shmem_startup_hook();

    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found;
    char *raw = static_cast<char *>(ShmemInitStruct("snowflake", shared_size(), &found));
    SharedState *s = reinterpret_cast<SharedState *>(TYPEALIGN(PG_CACHE_LINE_SIZE, raw));
    if (!found) {
        new (s) SharedState{};
        s->lock_tranche_id = LWLockNewTrancheId();
        LWLockInitialize(&s->lock, s->lock_tranche_id);
        s->reserver_latch = nullptr;
        s->closed = false;
        s->durable_writes = 0;
        s->node_worker_id = -1;
        publish_configured_identity(s, false);
        g_shared = s;
        load_mark(s);
    }
    g_shared = s;
    // Names the lock's wait events ("snowflake" in pg_stat_activity); every
    // backend inherits this from the postmaster.
    LWLockRegisterTranche(s->lock_tranche_id, "snowflake");
    LWLockRelease(AddinShmemInitLock);
}

}  // namespace

void install_shmem_hooks() {
#if PG_VERSION_NUM >= 150000
    prev_shmem_request_hook = shmem_request_hook;
    shmem_request_hook = shmem_request;
#else
    request_shmem();
#endif
    prev_shmem_startup_hook = shmem_startup_hook;
    shmem_startup_hook = shmem_startup;
}

void publish_configured_identity(SharedState *s, bool take_lock) {
    if (guc_worker_id < 0 && registry_configured())
        return;  // the registrar publishes the claimed identity
    if (take_lock)
        LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    s->node_datacenter_id = guc_datacenter_id;
    s->node_worker_id = guc_worker_id;
    s->identity_claimed = false;  // a configured identity always wins over a claim
    if (take_lock)
        LWLockRelease(&s->lock);
}

snowflake::StateRecord current_record(int64_t mark_unix_ms) {
    snowflake::StateRecord r;
    r.mark_unix_ms = mark_unix_ms;
    r.layout = g_layout;
    r.datacenter_id = guc_datacenter_id;
    r.worker_id = guc_worker_id;
    if (g_shared) {
        // The identity in use (the registry's claim, a reload not yet seen
        // by this process): what ids are actually issued under.
        record_identity(&r);
    }
    return r;
}

}  // namespace sfpg
