// snowflake_start_above(id): every id the node issues after the call is
// greater than id, across crashes too.  For a node that takes over from one
// whose ids may run ahead of this node's clock: the SQL edition after it
// borrowed ahead (moving between editions, docs/managed.md), or another
// node's ids.  Superuser only (the SQL script revokes it from PUBLIC too).
//
// The millisecond of id and every one before it count as used up: the id
// word is raised to "used up" at that millisecond, as a mark replayed from
// the WAL raises it (raise_word_to_mark), and the call returns only once the
// durable mark covers that millisecond, so a restart after a crash starts
// above it as well.  A millisecond ahead of the clock is a logical one (as if
// borrowed), not a clock reading: the clock policy then applies to the next
// id as after a step back, and the largest clock step is not inflated.  An
// id further ahead of the clock than snowflake.max_clock_backward_ms is
// refused: the node could issue no id until its clock got there (an id from
// another layout or a typing error, say), and the SQL edition refuses it too.
#include "../core/id_word.hpp"
#include "id_source.hpp"
#include "reservation.hpp"
#include "settings.hpp"
#include "shared_state.hpp"
#include "sql_values.hpp"
#include "wall_clock.hpp"

#include "firewall.hpp"

namespace {

// As long as a backend waits for the reserver elsewhere (id_source.cpp).
constexpr long kDurableTimeoutMs = 10000;

// Raises the word to "used up at ms" unless it is there already.  Words
// order like the ids taken from them, so a larger word never needs raising.
// The caller holds the generator lock (other slow paths stay out; the fast
// path may still move the word, hence the compare-and-swap).
void use_up_through(sfpg::SharedState *s, int64 ms) {
    const uint64 target = snowflake::word_used_up(sfpg::g_layout, ms);
    uint64 w = pg_atomic_read_u64(&s->word);
    while (w < target && !pg_atomic_compare_exchange_u64(&s->word, &w, target)) {
    }
    if (ms > s->gen.logical_high_ms)
        s->gen.logical_high_ms = ms;
    s->reservation_wanted = true;
}

// Waits until the durable mark covers ms (the reserver writes it, or this
// backend in single-user mode), never holding the lock while it waits.
void wait_until_durable(sfpg::SharedState *s, int64 ms) {
    long waited = 0;
    while (static_cast<int64>(pg_atomic_read_u64(&s->reserved_ms)) < ms) {
        if (!IsUnderPostmaster) {
            (void)sfpg::reserve_ahead(s);
            continue;
        }
        if (waited >= kDurableTimeoutMs)
            ereport(ERROR,
                    (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                     errmsg("could not make snowflake_start_above durable: the durable high-water "
                            "mark was not extended in time"),
                     errdetail("The \"snowflake reserver\" background worker did not write "
                               "snowflake.state within %ld ms. Ids issued from now on are above "
                               "the id, but a crash before the mark is written could lose that.",
                               kDurableTimeoutMs),
                     errhint("Check the server log for errors writing snowflake.state, then call "
                             "snowflake_start_above again.")));
        sfpg::wake_reserver(s);
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1,
                        PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
        waited += 1;
    }
}

}  // namespace

SNOWFLAKE_ENTRY(snowflake_start_above) {
    const int64 id = PG_GETARG_INT64(0);
    if (!superuser())
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("permission denied for function snowflake_start_above"),
                        errdetail("Only superusers can move the ids of a node.")));
    if (id < 0)
        sfpg::invalid_id(id);
    // Loaded, a primary, a node identity: as for snowflake_nextval().
    sfpg::check_can_generate();
    sfpg::SharedState *s = sfpg::g_shared;
    const int64 ms = id >> sfpg::g_layout.timestamp_shift();
    const int64 ahead = ms - (sfpg::wall_clock_unix_ms() - sfpg::g_layout.epoch_ms);
    if (ahead > sfpg::guc_max_clock_backward_ms)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("snowflake id %lld is %lld ms ahead of the clock", static_cast<long long>(id),
                        static_cast<long long>(ahead)),
                 errdetail("Ids after it could be issued only once the clock got there: more than "
                           "max_clock_backward_ms (%d ms) ahead.",
                           sfpg::guc_max_clock_backward_ms),
                 errhint("Check the id (an id of another epoch or layout?) and the clocks of both "
                         "nodes.")));
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    use_up_through(s, ms);
    LWLockRelease(&s->lock);
    wait_until_durable(s, ms);
    PG_RETURN_VOID();
}
