// The durable high-water mark and the background worker that extends it.
#include <csignal>

#include "registry.hpp"
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

// Publishes a mark that is already durable.
void publish_mark(SharedState *s, int64_t mark_ms) {
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    if (mark_ms > static_cast<int64>(pg_atomic_read_u64(&s->reserved_ms)))
        pg_atomic_write_u64(&s->reserved_ms, static_cast<uint64>(mark_ms));
    s->reservation_wanted = false;
    s->durable_writes++;
    s->durable_mark_unix_ms = mark_ms + g_layout.epoch_ms;
    LWLockRelease(&s->lock);
}

}  // namespace

void reserve_ahead(SharedState *s) {
    const int64_t now = wall_clock_unix_ms() - g_layout.epoch_ms;
    const uint64 word = pg_atomic_read_u64(&s->word);
    const int64_t last_ms = snowflake::word_ms(g_layout, word);
    const int64_t base = now > last_ms ? now : last_ms;
    const int64_t reserved = static_cast<int64>(pg_atomic_read_u64(&s->reserved_ms));
    LWLockAcquire(&s->lock, LW_SHARED);
    const bool wanted = s->reservation_wanted;
    LWLockRelease(&s->lock);

    // An idle node writes nothing: no fsync, no WAL, so idle servers stay
    // idle (checkpoints and archive_timeout skip them).  The first id after
    // an idle spell waits for one reservation (a few ms).  Every id changes
    // the word, so an unchanged word means no id was issued.
    const bool active = wanted || word != seen_word;
    seen_word = word;
    if (base < 0 || !active || reserved - base >= kReserveLowWaterMs)
        return;
    int64_t mark = base + kReserveWindowMs;
    if (mark > g_layout.max_timestamp())
        mark = g_layout.max_timestamp();
    if (mark <= reserved)
        return;
    // Durable first, published second: an id above the old mark exists only
    // once the new mark would survive a crash (state file) and a failover or
    // point-in-time restore (WAL).
    write_state_file(current_record(mark + g_layout.epoch_ms));
    const uint64_t end = log_mark(mark + g_layout.epoch_ms);
    if (!wait_for_sync_standbys(end))
        return;  // terminating before the standbys confirmed it: not published
    publish_mark(s, mark);
}

void record_exact_mark(int, uintptr_t) {
    // In the postmaster, after every other process has exited (shutdown, or
    // shared memory being reinitialised after a crash): no id can be issued
    // any more, so the word's millisecond is at or above every id ever issued
    // here, and the reservation beyond it can be given back.  Without this, a
    // restart would find the mark up to kReserveWindowMs ahead of the clock.
    // Only ever lowers the mark to that exact value; a failure leaves the
    // higher, still safe, mark in place.
    SharedState *s = g_shared;
    if (s == nullptr || s->durable_mark_unix_ms < 0)
        return;
    const int64_t exact = snowflake::word_ms(g_layout, pg_atomic_read_u64(&s->word));
    const int64_t exact_unix = exact + g_layout.epoch_ms;
    if (exact < 0 || exact_unix >= s->durable_mark_unix_ms)
        return;
    if (write_state_file_or_log(current_record(exact_unix)))
        s->durable_mark_unix_ms = exact_unix;
}

void wake_reserver(SharedState *s) {
    Latch *latch = s->reserver_latch;
    if (latch)
        SetLatch(latch);
}

void register_worker(const char *name, const char *function, int restart_s, int extra_flags) {
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
    // die: a SIGTERM also cuts a wait for synchronous standbys short; the
    // loop then exits through CHECK_FOR_INTERRUPTS (exit code 1: restarted
    // unless the server is shutting down).
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
    publish_configured_identity(s, true);

    for (;;) {
        CHECK_FOR_INTERRUPTS();
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            ProcessConfigFile(PGC_SIGHUP);
            publish_configured_identity(s, true);
        }
        record_new_claim(s);
        reserve_ahead(s);
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, kReserverTickMs,
                        PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
    }
}

void snowflake_reserver_main(Datum) { sfpg::firewall_void(reserver_body); }

}  // extern "C"
