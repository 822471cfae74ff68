// Shared memory: request, initialisation, and loading the durable mark.
#include "settings.hpp"
#include "shared_state.hpp"
#include "state_file.hpp"
#include "upgrade_guard.hpp"

#include "pg_includes.hpp"
#include "node_identity.hpp"
#include "reservation.hpp"
#if PG_VERSION_NUM < 150000
extern "C" {
#include "postmaster/autovacuum.h"
#include "replication/walsender.h"
}
#endif
extern "C" {
#include "access/twophase.h"
}

namespace sfpg {

SharedState *g_shared = nullptr;

void refuse_config_change(int elevel, const snowflake::StateRecord &recorded,
                          const snowflake::ConfigVerdict &v, bool from_wal) {
    static char refused[200];
    snowflake::refused_settings_text(v, refused, sizeof refused);
    const bool several = v.refused_count > 1;
    const snowflake::Layout &r = recorded.layout;
    ereport(elevel,
            (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
             errmsg(several ? "%s differ from the values the ids %s were issued under"
                            : "%s differs from the value the ids %s were issued under",
                    refused, from_wal ? "in the WAL" : "of this node"),
             errdetail("%s records epoch %lld and layout %d/%d/%d (datacenter/worker/sequence "
                       "bits); %s has epoch %lld and layout %d/%d/%d. %s",
                       from_wal ? "A snowflake mark in the WAL" : "snowflake.state",
                       static_cast<long long>(r.epoch_ms), r.datacenter_bits, r.worker_bits,
                       r.sequence_bits, from_wal ? "this server" : "the configuration",
                       static_cast<long long>(g_layout.epoch_ms), g_layout.datacenter_bits,
                       g_layout.worker_bits, g_layout.sequence_bits,
                       from_wal ? "After promotion its ids could collide with ids the primary "
                                  "issued."
                                : "New ids could collide with ids already issued."),
             from_wal ? errhint("Give this server the same %s as the server that wrote the WAL.",
                                refused)
                      : errhint(several ? "Restore the previous values of %s, or follow "
                                          "\"Changing the epoch or layout\" in the snowflake "
                                          "documentation (docs/operations.md)."
                                        : "Restore the previous value of %s, or follow "
                                          "\"Changing the epoch or layout\" in the snowflake "
                                          "documentation (docs/operations.md).",
                                refused)));
}

namespace {

#if PG_VERSION_NUM >= 150000
shmem_request_hook_type prev_shmem_request_hook = nullptr;
#endif
shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

// Set in the postmaster once it has set up shared memory: a later set-up is
// the reinitialisation after a crash (the postmaster's own memory survives).
bool initialised_before = false;

// Processes that can take ids (every PGPROC: backends, background and
// parallel workers, walsenders; the auxiliary processes and prepared
// transactions make it an upper bound): one counter slot each, and the bound
// that decides whether ids may be taken with fetch-and-add.
int max_processes() {
#if PG_VERSION_NUM >= 150000
    return MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts;
#else
    // UNTESTED (PostgreSQL 13-14): MaxBackends is not set yet when _PG_init
    // requests shared memory; this is the sum it will be.
    return MaxConnections + autovacuum_max_workers + 1 + max_worker_processes + max_wal_senders +
           NUM_AUXILIARY_PROCS + max_prepared_xacts;
#endif
}

Size shared_size() {
    // Room to align the struct to a cache line ourselves: ShmemInitStruct
    // only guarantees MAXALIGN.
    return add_size(add_size(sizeof(SharedState), PG_CACHE_LINE_SIZE),
                    mul_size(max_processes(), sizeof(BackendCounters)));
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
void load_mark(SharedState *s, bool after_crash) {
    snowflake::StateRecord stored;
    int64_t mark_unix = -1;
    const bool have_file = read_state_file(&stored);
    check_upgrade_marker(have_file ? &stored : nullptr);
    if (have_file) {
        identity_resume_claim(s, stored);
        if (after_crash)
            identity_keep_after_crash(s, stored);
        const IdentityShared &id = s->identity;
        snowflake::ConfigVerdict v =
            snowflake::check_config_change(stored, g_layout, id.datacenter_id, id.worker_id);
        if (v.refused_setting)
            refuse_config_change(ERROR, stored, v, false);
        if (v.node_changed)
            ereport(LOG, (errmsg("snowflake node identity changed from datacenter %lld worker "
                                 "%lld to datacenter %d worker %d",
                                 static_cast<long long>(stored.datacenter_id),
                                 static_cast<long long>(stored.worker_id), id.datacenter_id,
                                 id.worker_id)));
        if (v.epoch_moved_earlier)
            ereport(LOG, (errmsg("snowflake.epoch moved earlier, from %lld to %lld",
                                 static_cast<long long>(stored.layout.epoch_ms),
                                 static_cast<long long>(g_layout.epoch_ms))));
        mark_unix = stored.mark_unix_ms;
    }
    const int64_t mark_ms = mark_unix < 0 ? -1 : mark_unix - g_layout.epoch_ms;
    snowflake::start_after_mark(&s->gen, mark_ms);
    pg_atomic_init_u64(&s->word, snowflake::word_of(s->gen, g_layout));
    // Nothing is reserved beyond the mark yet: the reserver extends it (state
    // file and WAL) before the first id.
    pg_atomic_init_u64(&s->reserved_ms, static_cast<uint64>(s->gen.reserved_ms));
    s->file_mark_unix_ms = mark_unix;
    identity_settle_at_start(s, have_file ? &stored : nullptr);
}

void init_counters(SharedState *s) {
    s->n_counters = max_processes();
    for (int i = 0; i < s->n_counters; i++) {
        BackendCounters *c = &s->counters()[i];
        pg_atomic_init_u64(&c->ids_issued, 0);
        pg_atomic_init_u64(&c->sequence_waits, 0);
        pg_atomic_init_u64(&c->last_id, static_cast<uint64>(int64{-1}));
    }
    s->use_fetch_add = snowflake::fetch_add_safe(g_layout, s->n_counters);
    if (!s->use_fetch_add)
        ereport(LOG, (errmsg("snowflake takes ids with compare-and-swap: up to %d processes can "
                             "run out a millisecond's %lld sequence numbers at once",
                             s->n_counters, static_cast<long long>(g_layout.max_sequence() + 1)),
                      errdetail("Fetch-and-add, faster under contention, needs fewer processes "
                                "(max_connections and the worker settings) than sequence "
                                "numbers per millisecond (snowflake.sequence_bits).")));
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
#if PG_VERSION_NUM >= 190000
        // The name is kept in shared memory: every process sees it.
        s->lock_tranche_id = LWLockNewTrancheId("snowflake");
#else
        s->lock_tranche_id = LWLockNewTrancheId();
#endif
        LWLockInitialize(&s->lock, s->lock_tranche_id);
        s->reserver_latch = nullptr;
        s->registrar_latch = nullptr;
        s->citus_reader_latch = nullptr;
        s->citus_reader_pid = 0;
        s->citus_database_in_doubt = false;
        s->durable_writes = 0;
        pg_atomic_init_u64(&s->word, 0);
        pg_atomic_init_u64(&s->node, static_cast<uint64>(int64{-1}));
        identity_init(s);
        init_counters(s);
        g_shared = s;
        load_mark(s, initialised_before);
        initialised_before = true;
        // Runs when the postmaster exits or reinitialises shared memory
        // after a crash: every other process is gone by then.
        on_shmem_exit(record_final_mark, 0);
    }
    g_shared = s;
#if PG_VERSION_NUM < 190000
    // Names the lock's wait events ("snowflake" in pg_stat_activity); every
    // backend inherits this from the postmaster.
    LWLockRegisterTranche(s->lock_tranche_id, "snowflake");
#endif
    LWLockRelease(AddinShmemInitLock);
}

}  // namespace

void install_shmem_hooks() {
#if PG_VERSION_NUM >= 150000
    prev_shmem_request_hook = shmem_request_hook;
    shmem_request_hook = shmem_request;
#else  // PostgreSQL 13-14: untested (never built here; see pg_includes.hpp)
    request_shmem();
#endif
    prev_shmem_startup_hook = shmem_startup_hook;
    shmem_startup_hook = shmem_startup;
}

bool raise_word_to_mark(SharedState *s, int64_t mark_ms) {
    uint64 w = pg_atomic_read_u64(&s->word);
    do {
        if (mark_ms <= snowflake::word_ms(g_layout, w))
            return false;
    } while (!pg_atomic_compare_exchange_u64(&s->word, &w, snowflake::word_used_up(g_layout, mark_ms)));
    if (mark_ms > static_cast<int64>(pg_atomic_read_u64(&s->reserved_ms)))
        pg_atomic_write_u64(&s->reserved_ms, static_cast<uint64>(mark_ms));
    return true;
}

BackendCounters *g_my_counters = nullptr;

void resolve_my_counters() {
#if PG_VERSION_NUM >= 170000
    const int index = MyProcNumber;
#else
    const int index = MyProc != nullptr ? MyProc->pgprocno : -1;
#endif
    if (index < 0 || index >= g_shared->n_counters)
        elog(ERROR, "snowflake: process number %d has no counter slot (%d slots)", index,
             g_shared->n_counters);
    g_my_counters = &g_shared->counters()[index];
}

snowflake::StateRecord current_record(int64_t mark_unix_ms, uint32_t *generation) {
    snowflake::StateRecord r;
    r.mark_unix_ms = mark_unix_ms;
    r.layout = g_layout;
    r.datacenter_id = guc_datacenter_id;
    r.worker_id = guc_worker_id;
    uint32_t g = 0;
    if (g_shared) {
        // The identity in use (the registry's claim, a reload not yet seen
        // by this process): what ids are actually issued under.
        g = identity_into_record(&r);
    }
    if (generation)
        *generation = g;
    return r;
}

}  // namespace sfpg
