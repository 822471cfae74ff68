#include <cstring>
#include <ctime>

#include "../core/id_path.hpp"
#include "citus_identity.hpp"
#include "id_source.hpp"
#include "node_identity.hpp"
#include "reservation.hpp"
#include "settings.hpp"
#include "shared_state.hpp"
#include "sql_values.hpp"
#include "wall_clock.hpp"

#include "pg_includes.hpp"
extern "C" {
#include "libpq-fe.h"
}
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

// A real clock read: the slow path and waits for the clock must see it move.
int64_t now_ms() { return wall_clock_unix_ms() - g_layout.epoch_ms; }

// The id path's clock: the TSC-proven millisecond (see core/ms_clock.hpp).
int64_t id_now_ms() { return id_clock_unix_ms() - g_layout.epoch_ms; }

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

// Per-call waiting bookkeeping: plain data, nothing to destroy on ereport.
struct WaitState {
    int64_t clock_deadline = -1;        // monotonic ms; policy wait
    int64_t reservation_deadline = -1;  // monotonic ms
    int64_t registry_deadline = -1;     // monotonic ms
};

// Waits a little for the registry's confirmation of the node's pair
// (node_identity.hpp), never holding the lock; false once
// snowflake.registry_wait_timeout has passed.
bool wait_for_registry(WaitState *w) {
    const int64_t mono = monotonic_ms();
    if (w->registry_deadline < 0)
        w->registry_deadline = mono + guc_registry_wait_timeout_ms;
    const int64_t left = w->registry_deadline - mono;
    if (left <= 0)
        return false;
    nap(static_cast<long>(left < 10 ? left : 10));
    return true;
}

// Spins to the next millisecond on this process's own clock, touching no
// shared line (no thundering herd on the word).  Precise by design: sleeping
// would lose most of a millisecond's capacity.  A clock step backwards ends
// the spin, so the generator can apply the clock policy.
void spin_to(int64_t target_ms) {
    unsigned spins = 0;
    for (int64_t now = id_now_ms(); now == target_ms - 1; now = id_now_ms()) {
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
    if (!IsUnderPostmaster) {
        // Single-user mode runs no background workers: this backend is the
        // whole server, and extends the mark itself (state file, then WAL).
        (void)reserve_ahead(g_shared);
        CHECK_FOR_INTERRUPTS();
        return;
    }
    const int64_t mono = monotonic_ms();
    if (w->reservation_deadline < 0)
        w->reservation_deadline = mono + kReservationTimeoutMs;
    else if (mono >= w->reservation_deadline) {
        if (g_shared->reserver_waits_for_standbys)
            ereport(ERROR,
                    (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                     errmsg("could not reserve snowflake ids: the synchronous standbys did not "
                            "confirm the durable high-water mark in time"),
                     errdetail("The \"snowflake reserver\" background worker has waited more "
                               "than %lld ms for the standbys in synchronous_standby_names to "
                               "flush the mark's WAL record.",
                               static_cast<long long>(kReservationTimeoutMs)),
                     errhint("Ids wait for the synchronous standbys as commits do: check that "
                             "they are connected (pg_stat_replication).")));
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("could not reserve snowflake ids: the durable high-water mark was "
                               "not extended in time"),
                        errdetail("The \"snowflake reserver\" background worker did not write "
                                  "snowflake.state within %lld ms.",
                                  static_cast<long long>(kReservationTimeoutMs)),
                        errhint("Check the server log for errors writing snowflake.state.")));
    }
    wake_reserver(g_shared);
    nap(1);
}

// After a compare-and-swap lost to another process: a short, growing pause,
// so that processes that collided do not collide again at once.
void back_off(unsigned *failures) {
    const unsigned n = *failures < 6 ? *failures : 6;
    for (unsigned i = (1u << n) + (random_u32() & ((1u << n) - 1)); i > 0; i--)
        pg_spin_delay();
    ++*failures;
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
                               static_cast<long long>(r.behind_ms)),
                        errdetail("Ids count milliseconds from snowflake.epoch; no id can be "
                                  "made before it."),
                        errhint("Check the time source (NTP) of this server, or the value of "
                                "snowflake.epoch.")));
        pg_unreachable();
    case snowflake::Outcome::LifetimeOver:
        lifetime_error(r.wait_for_ms);
    }
}

// Once recovery has ended it never resumes in this backend's lifetime.
bool recovery_done = false;

[[noreturn]] void report_no_identity(const char *why) {
    if (citus_mode())
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("snowflake.worker_id is not set and this node has no identity from Citus"),
                 errdetail("%s", why ? why : "The Citus group id was not read yet."),
                 errhint("With snowflake.citus_database set, a node takes its identity from its "
                         "Citus group: add it to the cluster from the coordinator "
                         "(citus_add_node), or on the coordinator register it "
                         "(citus_set_coordinator_host); or set snowflake.worker_id.")));
    if (why != nullptr)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("snowflake.worker_id is not set and is waiting for the registry"),
                        errdetail("%s", why),
                        errhint("The \"snowflake registrar\" background worker claims an id from "
                                "snowflake.registry at start and retries until it gets one; see "
                                "the server log.")));
    // A misspelt setting is removed at start with a WARNING in the log, which
    // the person who meets this error may never read: name it here.
    static char typos[512];
    const bool has_typos = unknown_settings_in_configuration(typos, sizeof typos) > 0;
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("snowflake.worker_id is not set"),
                    has_typos ? errdetail("%s", typos) : 0,
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
    IdentityView v;
    if (identity_in_use(&v))
        return;
    // A node just added to its Citus cluster: the group id is read at once.
    if (citus_mode() && wait_for_citus_identity())
        return;
    (void)identity_in_use(&v);
    report_no_identity(v.waiting_for_registry);
}

namespace {

// The id word's atomic operations, for the templates of core/id_path.hpp.
struct SharedWord {
    pg_atomic_uint64 *word;
    uint64_t load() { return pg_atomic_read_u64(word); }
    uint64_t fetch_add(uint64_t n) { return pg_atomic_fetch_add_u64(word, static_cast<int64>(n)); }
    bool cas(uint64_t *expected, uint64_t desired) {
        uint64 e = *expected;
        const bool ok = pg_atomic_compare_exchange_u64(word, &e, desired);
        *expected = e;
        return ok;
    }
};

void count_issued(BackendCounters *c, int64_t first, int64_t n) {
    pg_atomic_write_u64(&c->ids_issued, pg_atomic_read_u64(&c->ids_issued) + static_cast<uint64>(n));
    pg_atomic_write_u64(&c->last_id, static_cast<uint64>(first + (n - 1)));
}

void count_wait(BackendCounters *c) {
    pg_atomic_write_u64(&c->sequence_waits, pg_atomic_read_u64(&c->sequence_waits) + 1);
}

// Where snowflake.registry points, without its password or other options:
// host, port and database.
const char *registry_address() {
    static char buf[300];
    char host[128] = "", port[16] = "", db[128] = "";
    PQconninfoOption *opts = PQconninfoParse(guc_registry, nullptr);
    for (PQconninfoOption *o = opts; o && o->keyword; o++) {
        char *dst = strcmp(o->keyword, "host") == 0 ? host
                    : strcmp(o->keyword, "hostaddr") == 0 && !host[0] ? host
                    : strcmp(o->keyword, "port") == 0 ? port
                    : strcmp(o->keyword, "dbname") == 0 ? db : nullptr;
        if (dst && o->val && o->val[0])
            strlcpy(dst, o->val, dst == port ? sizeof port : sizeof host);
    }
    if (opts)
        PQconninfoFree(opts);
    snprintf(buf, sizeof buf, "host=%s port=%s dbname=%s", host[0] ? host : "(default)",
             port[0] ? port : "(default)", db[0] ? db : "(default)");
    return buf;
}

// No confirmation from the registry within snowflake.registry_wait_timeout.
[[noreturn]] void report_awaiting_registry(const IdentityBlock &b) {
    static char lease[160];
    if (b.grant_floor_unix_ms >= 0)
        snprintf(lease, sizeof lease, "gave it at %s on its own clock, which this node's clock "
                 "is not past yet (its ids carry later times)",
                 timestamptz_to_str(
                     DatumGetTimestampTz(unix_ms_to_timestamptz(b.grant_floor_unix_ms))));
    else if (b.lease_until_unix_ms < 0)
        snprintf(lease, sizeof lease, "has not confirmed it since this node's start or last "
                 "change of identity");
    else
        snprintf(lease, sizeof lease, "last confirmed it until %s (snowflake.registry_lease)",
                 timestamptz_to_str(
                     DatumGetTimestampTz(unix_ms_to_timestamptz(b.lease_until_unix_ms))));
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("snowflake ids under datacenter_id %d worker_id %d wait for the registry to "
                    "confirm the pair to this node",
                    b.datacenter_id, b.worker_id),
             errdetail("The registry (%s) %s; waited %d ms (snowflake.registry_wait_timeout).%s%s",
                       registry_address(), lease, guc_registry_wait_timeout_ms,
                       b.registry_error[0] ? " Its last failure: " : "", b.registry_error),
             errhint("No id is issued under a pair the registry has not confirmed: another node "
                     "may hold it. Check that the registry is reachable (the \"snowflake "
                     "registrar\" lines in the server log); ids resume as soon as it answers.")));
    pg_unreachable();
}

// The registry's verdict on this node's pair (node_identity.hpp), after
// releasing the lock.
[[noreturn]] void report_blocked(const IdentityBlock &b) {
    if (b.awaiting_registry)
        report_awaiting_registry(b);
    if (b.skew_blocked)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("snowflake ids under datacenter_id %d worker_id %d wait for this node's "
                        "clock to agree with the registry's",
                        b.datacenter_id, b.worker_id),
                 errdetail("At the registry's last answer this node's clock was %lld ms %s the "
                           "registry's (measured within %lld ms), more than "
                           "snowflake.registry_max_skew (%d ms).",
                           static_cast<long long>(b.skew_offset_ms < 0 ? -b.skew_offset_ms
                                                                       : b.skew_offset_ms),
                           b.skew_offset_ms < 0 ? "behind" : "ahead of",
                           static_cast<long long>(b.skew_error_ms), b.max_skew_ms),
                 errhint("Synchronise the clocks of this node and the registry server (NTP). Ids "
                         "go on at the first answer within the limit; the registrar asks every "
                         "few seconds meanwhile.")));
    if (b.refused)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("the snowflake registry refuses datacenter_id %d worker_id %d to this node",
                        b.datacenter_id, b.worker_id),
                 errdetail("%s.", b.reason),
                 errhint("Two nodes must never issue ids under one pair. Give this node a pair no "
                         "other node uses (snowflake.worker_id, snowflake.datacenter_id) and "
                         "reload; or, if the other node is gone for good, release its row on the "
                         "registry.")));
    const char *until =
        timestamptz_to_str(DatumGetTimestampTz(unix_ms_to_timestamptz(b.not_before_unix_ms)));
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("snowflake ids under datacenter_id %d worker_id %d are held back until %s",
                    b.datacenter_id, b.worker_id, until),
             errdetail("The snowflake registry says %s: its ids under this pair carry times up "
                       "to then, so this node's must carry later ones.",
                       b.reason[0] ? b.reason : "another node retired this pair"),
             errhint("Wait until then, or give this node another snowflake.worker_id and "
                     "reload.")));
    pg_unreachable();
}

enum class Slow { Decided, NoIdentity, Blocked };

// The slow path: one decision under the generator lock.  Decides nothing
// while the node has no identity, or while the registry holds its ids back
// (*blocked says why).
Slow take_slow(SharedState *s, snowflake::Request req, snowflake::Result *r,
               IdentityBlock *blocked) {
    SharedWord word{&s->word};
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    // The identity is the node's, read under the lock: a reload applies at
    // once, even to a running statement.
    req.datacenter_id = s->identity.datacenter_id;
    req.worker_id = s->identity.worker_id;
    if (unlikely(req.worker_id < 0)) {
        LWLockRelease(&s->lock);
        return Slow::NoIdentity;
    }
    // An identity with no node published is held back by the registry, or
    // waits for its confirmation; so is one whose confirmation ran out.
    if ((unlikely(static_cast<int64>(pg_atomic_read_u64(&s->node)) < 0) ||
         identity_lease_ran_out_locked(s)) &&
        !identity_unblock_if_due_locked(s, blocked)) {
        LWLockRelease(&s->lock);
        return Slow::Blocked;
    }
    *r = snowflake::take_locked(word, now_ms, &s->gen, g_layout,
                                static_cast<int64>(pg_atomic_read_u64(&s->reserved_ms)), req);
    if (r->outcome == snowflake::Outcome::NeedReservation)
        s->reservation_wanted = true;
    LWLockRelease(&s->lock);
    return Slow::Decided;
}

}  // namespace

namespace {

// The fast path's reads besides the word, in the order try_fast makes them
// (core/id_path.hpp says why): the clock after the word, the identity and
// the mark after the clock.  The barriers keep the compiler (and, for the
// loads, the CPU) from moving a read before the one it must follow.
int64_t fast_clock() {
    pg_read_barrier();
    return id_now_ms();
}

snowflake::NodeView fast_identity(SharedState *s) {
    pg_read_barrier();
    return snowflake::NodeView{static_cast<int64>(pg_atomic_read_u64(&s->node)),
                               static_cast<int64>(pg_atomic_read_u64(&s->reserved_ms))};
}

// Everything but one uncontended lock-free attempt: retries, waits for the
// next millisecond, random sequence starts and the slow path.
pg_noinline int64_t take_ids_loop(int64_t want, int64_t *first) {
    SharedState *s = g_shared;
    BackendCounters *counters = my_counters();
    snowflake::Request req{};
    req.policy = static_cast<snowflake::ClockPolicy>(guc_clock_policy);
    req.max_backward_ms = guc_max_clock_backward_ms;
    req.count = want;
    req.random_start = guc_random_sequence_start;
    req.random = guc_random_sequence_start ? random_u32() : 0;
    const int64_t first_seq = snowflake::first_sequence(g_layout, req);
    SharedWord word{&s->word};
    WaitState w;
    unsigned failures = 0;
    for (;;) {
        const snowflake::AttemptResult a =
            snowflake::try_fast(word, fast_clock, [s] { return fast_identity(s); }, g_layout, want,
                                first_seq, s->use_fetch_add);
        switch (a.outcome) {
        case snowflake::Attempt::Issued:
            count_issued(counters, a.first_id, a.count);
            *first = a.first_id;
            return a.count;
        case snowflake::Attempt::Retry:
            back_off(&failures);
            continue;
        case snowflake::Attempt::WaitNextMs:
            count_wait(counters);
            spin_to(a.wait_for_ms);
            continue;
        case snowflake::Attempt::Slow:
            break;
        }
        snowflake::Result r;
        IdentityBlock blocked;
        const Slow slow = take_slow(s, req, &r, &blocked);
        if (slow == Slow::Blocked && blocked.awaiting_registry && wait_for_registry(&w))
            continue;
        if (slow == Slow::Blocked)
            report_blocked(blocked);
        if (slow == Slow::NoIdentity) {
            check_can_generate();  // reports why there is no identity
            continue;              // it arrived meanwhile
        }
        if (r.outcome == snowflake::Outcome::Issued) {
            count_issued(counters, r.first_id, r.count);
            *first = r.first_id;
            return r.count;
        }
        if (r.outcome == snowflake::Outcome::SequenceExhausted)
            count_wait(counters);
        handle_refusal(r, &w);
    }
}

// The common case of one id, kept short: one attempt that takes the next id
// of the current millisecond.  Anything else, and random_sequence_start,
// goes round the full loop.  Returns by value: an address-taken local would
// give every id a stack-protector check.
inline snowflake::AttemptResult take_fast(int64_t want) {
    if (unlikely(guc_random_sequence_start))
        return snowflake::AttemptResult{snowflake::Attempt::Slow, 0, 0, 0};
    SharedState *s = g_shared;
    SharedWord word{&s->word};
    const snowflake::AttemptResult a = snowflake::try_fast(
        word, fast_clock, [s] { return fast_identity(s); }, g_layout, want, 0, s->use_fetch_add);
    if (likely(a.outcome == snowflake::Attempt::Issued))
        count_issued(my_counters(), a.first_id, a.count);
    return a;
}

pg_noinline int64_t take_id_loop() {
    int64_t id;
    (void)take_ids_loop(1, &id);
    return id;
}

}  // namespace

// Blocks of ids (snowflake_generate): once per block, the full loop.
int64_t take_ids(int64_t want, int64_t *first) {
    check_loaded_and_primary();
    return take_ids_loop(want, first);
}

int64_t take_id() {
    check_loaded_and_primary();
    const snowflake::AttemptResult a = take_fast(1);
    if (likely(a.outcome == snowflake::Attempt::Issued))
        return a.first_id;
    return take_id_loop();
}

}  // namespace sfpg
