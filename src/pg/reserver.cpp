// The durable high-water mark and the background worker that extends it.
#include <csignal>

#include "node_identity.hpp"
#include "reservation.hpp"
#include "settings.hpp"
#include "shared_state.hpp"
#include "wall_clock.hpp"
#include "state_file.hpp"
#include "wal_mark.hpp"
#include "worker_slots.hpp"

#include "firewall.hpp"
extern "C" {
#include "tcop/tcopprot.h"
}

namespace sfpg {

namespace {

// The id word when the reserver last looked: unchanged means the node is idle.
uint64 seen_word = 0;

// Ticks in a row without activity, and how many make the reserver sleep
// until it is woken (a backend needing a reservation, a reload, a claim).
int idle_ticks = 0;
constexpr int kIdleTicksBeforeSleep = 20;  // 1 s

// Every exit (terminated, an ERROR in a write, postmaster death) leaves no
// latch behind for backends to set.
void forget_latch(int, Datum) {
    SharedState *s = g_shared;
    if (s == nullptr)
        return;
    LWLockReleaseAll();
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    if (s->reserver_latch == MyLatch)
        s->reserver_latch = nullptr;
    LWLockRelease(&s->lock);
}

// Publishes a mark that is already durable, written with the identity of
// `generation`.  If the identity changed since (a reload, a claim), the
// file and the WAL record the old one: the mark is not published, and the
// next round writes one with the new identity before any id carries it.
void publish_mark(SharedState *s, int64_t mark_ms, uint32_t generation) {
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    const bool current = generation == s->identity.generation;
    if (current && mark_ms > static_cast<int64>(pg_atomic_read_u64(&s->reserved_ms)))
        pg_atomic_write_u64(&s->reserved_ms, static_cast<uint64>(mark_ms));
    if (current)
        s->reservation_wanted = false;
    s->durable_writes++;
    s->file_mark_unix_ms = mark_ms + g_layout.epoch_ms;
    LWLockRelease(&s->lock);
}

}  // namespace

bool reserve_ahead(SharedState *s) {
    const int64_t now = wall_clock_unix_ms() - g_layout.epoch_ms;
    const uint64 word = pg_atomic_read_u64(&s->word);
    const int64_t last_ms = snowflake::word_ms(g_layout, word);
    const int64_t base = now > last_ms ? now : last_ms;
    const int64_t reserved = static_cast<int64>(pg_atomic_read_u64(&s->reserved_ms));
    LWLockAcquire(&s->lock, LW_SHARED);
    const bool wanted = s->reservation_wanted;
    // No mark past the registry's confirmation: no id carries a later time.
    const int64_t cap = identity_mark_cap_locked(s);
    LWLockRelease(&s->lock);

    // An idle node writes nothing: no fsync, no WAL, so idle servers stay
    // idle (checkpoints and archive_timeout skip them).  The first id after
    // an idle spell waits for one reservation (a few ms).  Every id changes
    // the word, so an unchanged word means no id was issued.
    const bool active = wanted || word != seen_word;
    seen_word = word;
    if (base < 0 || !active || reserved - base >= kReserveLowWaterMs)
        return active;
    int64_t mark = base + kReserveWindowMs;
    if (mark > g_layout.max_timestamp())
        mark = g_layout.max_timestamp();
    if (mark > cap)
        mark = cap;
    if (mark <= reserved)
        return active;
    // Durable first, published second: an id above the old mark exists only
    // once the new mark would survive a crash (state file) and a failover or
    // point-in-time restore (WAL).
    uint32_t generation;
    const snowflake::StateRecord rec = current_record(mark + g_layout.epoch_ms, &generation);
    write_state_file(rec);
    const uint64_t end = log_mark(rec);
    if (!wait_for_sync_standbys(end))
        return active;  // terminating before the standbys confirmed it: not published
    publish_mark(s, mark, generation);
    return active;
}

void record_final_mark(int code, uintptr_t) {
    // In the postmaster (or a single-user backend) at exit, after every
    // other process has exited: no id can be issued any more, so the word's
    // millisecond is at or above every id ever issued here and the state
    // file can hold exactly it.  That gives back the reservation beyond the
    // last id (a restart would otherwise find the mark up to
    // kReserveWindowMs ahead of the clock), and on a standby it records the
    // last mark replayed from the WAL (redo writes the file lazily).
    //
    // Only on a clean exit: after a crash, PostgreSQL reinitialises shared
    // memory because it may be corrupt, and the higher mark already in the
    // file is the safe one to keep.  A failure is logged and leaves the old
    // file, also safe; never more than LOG here (an fsync failure would be
    // PANIC under data_sync_retry = off, in the postmaster).
    SharedState *s = g_shared;
    if (code != 0 || s == nullptr)
        return;
    const int64_t exact = snowflake::word_ms(g_layout, pg_atomic_read_u64(&s->word));
    const int64_t exact_unix = exact + g_layout.epoch_ms;
    // No file and no mark: the node never issued an id (its word may still
    // have moved, fenced at the clock for its first identity).
    const bool never_reserved =
        s->file_mark_unix_ms < 0 && static_cast<int64>(pg_atomic_read_u64(&s->reserved_ms)) < 0;
    if (exact < 0 || never_reserved || exact_unix == s->file_mark_unix_ms)
        return;
    if (write_state_file_or_log(current_record(exact_unix)))
        s->file_mark_unix_ms = exact_unix;
}

void wake_reserver(SharedState *s) {
    Latch *latch = s->reserver_latch;
    if (latch)
        SetLatch(latch);
}

void register_worker(const char *name, const char *function, int restart_s, int extra_flags) {
    // Single-user mode (postgres --single) runs no background workers; from
    // PostgreSQL 17 on it does not even register them.  The backend then
    // does the reserver's work itself (wait_for_reservation).
    if (!IsPostmasterEnvironment)
        return;
    BackgroundWorker worker;
    memset(&worker, 0, sizeof worker);
    worker.bgw_flags = BGWORKER_SHMEM_ACCESS | extra_flags;
    worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
    worker.bgw_restart_time = restart_s;
    strlcpy(worker.bgw_library_name, "snowflake", BGW_MAXLEN);
    strlcpy(worker.bgw_function_name, function, BGW_MAXLEN);
    strlcpy(worker.bgw_name, name, BGW_MAXLEN);
    strlcpy(worker.bgw_type, name, BGW_MAXLEN);
    RegisterBackgroundWorker(&worker);
    refuse_unless_registered(name);
}

void register_reserver() { register_worker("snowflake reserver", "snowflake_reserver_main", 1); }

}  // namespace sfpg

extern "C" {

PGDLLEXPORT void snowflake_reserver_main(Datum arg);

static void reserver_body() {
    using namespace sfpg;
    // die: a SIGTERM also cuts a wait for synchronous standbys short.  The
    // loop then exits itself (code 1: restarted unless the server is
    // shutting down), without the FATAL that CHECK_FOR_INTERRUPTS would log
    // at every clean shutdown.
    pqsignal(SIGTERM, die);
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    BackgroundWorkerUnblockSignals();
    // A mark counts once the synchronous standbys have flushed it, whatever
    // synchronous_commit the server runs with.
    SetConfigOption("synchronous_commit", "on", PGC_SUSET, PGC_S_OVERRIDE);

    SharedState *s = g_shared;
    before_shmem_exit(forget_latch, 0);
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    s->reserver_latch = MyLatch;
    LWLockRelease(&s->lock);
    // Only new ids (or a waiting backend) make the node active: a restart
    // alone must not push the mark ahead of the clock.
    seen_word = pg_atomic_read_u64(&s->word);
    identity_after_reload(s);

    for (;;) {
        if (ProcDiePending)
            proc_exit(1);
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            ProcessConfigFile(PGC_SIGHUP);
            identity_after_reload(s);
        }
        identity_record_new_claim(s);
        idle_ticks = reserve_ahead(s) ? 0 : idle_ticks + 1;
        // Idle, sleep until woken: a backend that needs the mark extended
        // wakes it (the first id after an idle spell waits for one
        // reservation, a few ms), and so do a reload, a registry claim and
        // a shutdown.
        const bool sleep = idle_ticks >= kIdleTicksBeforeSleep;
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH | (sleep ? 0 : WL_TIMEOUT),
                        sleep ? -1 : kReserverTickMs, PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
    }
}

void snowflake_reserver_main(Datum) { sfpg::firewall_void(reserver_body); }

}  // extern "C"
