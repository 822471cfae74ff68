#include <ctime>

#include "id_source.hpp"
#include "registry.hpp"
#include "reservation.hpp"
#include "settings.hpp"
#include "shared_state.hpp"
#include "wall_clock.hpp"

#include "pg_includes.hpp"
#if PG_VERSION_NUM >= 150000
extern "C" {
#include "common/pg_prng.h"
}
#endif

namespace sfpg {

namespace {

// How long a backend waits for the reserver to extend the durable mark
// before giving up: far above its restart time and an fsync.
constexpr int64_t kReservationTimeoutMs = 10000;

int64_t monotonic_ms() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// A real clock read: waits must see the clock move.
int64_t now_ms() { return wall_clock_unix_ms() - g_layout.epoch_ms; }

uint32_t random_u32() {
#if PG_VERSION_NUM >= 150000
    return pg_prng_uint32(&pg_global_prng_state);
#else  // PostgreSQL 13-14: untested (never built here; see pg_includes.hpp)
    return static_cast<uint32_t>(random());
#endif
}

const char *policy_name() {
    return snowflake::clock_policy_name(static_cast<snowflake::ClockPolicy>(guc_clock_policy));
}

// Sleeps up to ms milliseconds, waking early for interrupts.
void nap(long ms) {
    (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, ms < 1 ? 1 : ms,
                    PG_WAIT_EXTENSION);
    ResetLatch(MyLatch);
    CHECK_FOR_INTERRUPTS();
}

[[noreturn]] void clock_error(int64_t behind_ms, const char *detail_fmt) {
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("system clock moved backwards by %lld ms",
                           static_cast<long long>(behind_ms)),
                    errdetail(detail_fmt, policy_name(), guc_max_clock_backward_ms),
                    errhint("No id was issued: it could have duplicated or undercut one already "
                            "issued. Check the time source (NTP) of this server.")));
    pg_unreachable();
}

// Takes the generator lock.  It is held for a few tens of nanoseconds, so a
// backend that finds it taken spins briefly before queueing: LWLockAcquire
// alone would put it to sleep on a semaphore at the first conflict, and a
// sleep and wake-up cost microseconds -- far more than the wait itself.
// Past the spin (the holder was preempted) it queues as usual.
void acquire_generator_lock(LWLock *lock) {
    for (int i = 0; i < 100; i++) {
        if (LWLockConditionalAcquire(lock, LW_EXCLUSIVE))
            return;
        pg_spin_delay();
    }
    LWLockAcquire(lock, LW_EXCLUSIVE);
}

// Per-call waiting bookkeeping: plain data, nothing to destroy on ereport.
struct WaitState {
    int64_t clock_deadline = -1;        // monotonic ms; policy wait
    int64_t reservation_deadline = -1;  // monotonic ms
};

// Spins to the next millisecond.  Precise by design: sleeping would lose most
// of a millisecond's capacity.  A clock step backwards ends the spin, so the
// generator can apply the clock policy.
void spin_to(int64_t target_ms) {
    unsigned spins = 0;
    for (int64_t now = now_ms(); now == target_ms - 1; now = now_ms()) {
        pg_spin_delay();
        if ((++spins & 1023) == 0)
            CHECK_FOR_INTERRUPTS();
    }
}

void wait_for_clock(const snowflake::Result &r, WaitState *w) {
    const int64_t mono = monotonic_ms();
    if (w->clock_deadline < 0)
        w->clock_deadline = mono + guc_max_clock_backward_ms;
    else if (mono >= w->clock_deadline)
        clock_error(r.behind_ms,
                    "snowflake.clock_backward_policy is \"%s\" and the clock did not catch up "
                    "within snowflake.max_clock_backward_ms (%d ms).");
    // Short naps: the clock may be stepped forward (corrected) at any time.
    int64_t ms = w->clock_deadline - mono;
    if (r.behind_ms < ms)
        ms = r.behind_ms;
    nap(static_cast<long>(ms < 10 ? ms : 10));
}

void wait_for_reservation(WaitState *w) {
    const int64_t mono = monotonic_ms();
    if (w->reservation_deadline < 0)
        w->reservation_deadline = mono + kReservationTimeoutMs;
    else if (mono >= w->reservation_deadline)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("could not reserve snowflake ids: the durable high-water mark was "
                               "not extended in time"),
                        errdetail("The \"snowflake reserver\" background worker did not write "
                                  "snowflake.state within %lld ms.",
                                  static_cast<long long>(kReservationTimeoutMs)),
                        errhint("Check the server log for errors writing snowflake.state.")));
    wake_reserver(g_shared);
    nap(1);
}

[[noreturn]] void lifetime_error(int64_t ms) {
    ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                    errmsg("snowflake ids are exhausted: timestamp %lld ms is past the layout's "
                           "lifetime",
                           static_cast<long long>(ms)),
                    errdetail("With %d timestamp bits the last usable millisecond is %lld ms "
                              "after snowflake.epoch.",
                              g_layout.timestamp_bits(),
                              static_cast<long long>(g_layout.max_timestamp()))));
    pg_unreachable();
}

// Waits or reports as the outcome demands; returns to retry.
void handle_refusal(const snowflake::Result &r, WaitState *w) {
    switch (r.outcome) {
    case snowflake::Outcome::Issued:
        return;
    case snowflake::Outcome::SequenceExhausted:
        spin_to(r.wait_for_ms);
        return;
    case snowflake::Outcome::ClockBehindWait:
        wait_for_clock(r, w);
        return;
    case snowflake::Outcome::NeedReservation:
        wait_for_reservation(w);
        return;
    case snowflake::Outcome::ClockBehindError:
        clock_error(r.behind_ms, "snowflake.clock_backward_policy is \"%s\" "
                                 "(snowflake.max_clock_backward_ms = %d ms).");
    case snowflake::Outcome::BorrowLimit:
        clock_error(r.behind_ms,
                    "snowflake.clock_backward_policy is \"%s\" and issuing an id would run ahead "
                    "of the clock by more than snowflake.max_clock_backward_ms (%d ms).");
    case snowflake::Outcome::ClockBeforeEpoch:
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("system clock is %lld ms before snowflake.epoch",
                               static_cast<long long>(r.behind_ms))));
        pg_unreachable();
    case snowflake::Outcome::LifetimeOver:
        lifetime_error(r.wait_for_ms);
    }
}

// Once recovery has ended it never resumes in this backend's lifetime.
bool recovery_done = false;

[[noreturn]] void report_no_identity(const char *why) {
    if (why != nullptr)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("snowflake.worker_id is not set and is waiting for the registry"),
                        errdetail("%s", why),
                        errhint("The \"snowflake registrar\" background worker claims an id from "
                                "snowflake.registry at start and retries until it gets one; see "
                                "the server log.")));
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("snowflake.worker_id is not set"),
                    errhint("Set snowflake.worker_id in postgresql.conf to a value from 0 to "
                            "%lld that no other node of datacenter %d uses, then reload.",
                            static_cast<long long>(max_worker_id()), guc_datacenter_id)));
    pg_unreachable();
}

// ERROR unless the generator is loaded and the server is not in recovery.
void check_loaded_and_primary() {
    if (likely(recovery_done))
        return;
    if (g_shared == nullptr)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("snowflake is not loaded"),
                        errhint("add 'snowflake' to shared_preload_libraries and restart the "
                                "server")));
    if (RecoveryInProgress())
        ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                        errmsg("cannot generate snowflake ids during recovery"),
                        errdetail("A standby shares its primary's node identity; ids made here "
                                  "could collide with the primary's.")));
    recovery_done = true;
}

}  // namespace

void check_can_generate() {
    check_loaded_and_primary();
    int dc, worker;
    const char *why;
    if (!node_identity(&dc, &worker, &why))
        report_no_identity(why);
}

int64_t take_ids(int64_t want, int64_t *first) {
    check_loaded_and_primary();
    snowflake::Request req;
    req.policy = static_cast<snowflake::ClockPolicy>(guc_clock_policy);
    req.max_backward_ms = guc_max_clock_backward_ms;
    req.count = want;
    req.random_start = guc_random_sequence_start;
    req.random = guc_random_sequence_start ? random_u32() : 0;
    WaitState w;
    SharedState *s = g_shared;
    for (;;) {
        // The identity and the clock are read under the lock: the identity
        // is the node's (a reload applies at once, even to a running
        // statement), and a clock read before the lock could be older than
        // ids other backends issued meanwhile -- a false step backwards.
        acquire_generator_lock(&s->lock);
        req.datacenter_id = s->node_datacenter_id;
        req.worker_id = s->node_worker_id;
        if (unlikely(req.worker_id < 0)) {
            LWLockRelease(&s->lock);
            check_can_generate();  // reports why
            continue;              // the identity arrived meanwhile
        }
        req.now_ms = id_clock_unix_ms() - g_layout.epoch_ms;
        const snowflake::Result r = snowflake::next_ids(&s->gen, g_layout, req);
        LWLockRelease(&s->lock);
        if (r.outcome == snowflake::Outcome::Issued) {
            *first = r.first_id;
            return r.count;
        }
        handle_refusal(r, &w);
    }
}

}  // namespace sfpg
