// Taking ids from the shared id word: the lock-free fast path, and the slow
// path's compare-and-swap loop around next_ids().
//
// The decisions are pure functions (decide_fast, and next_ids in
// generator.hpp).  The two templates below put them around the atomic
// operations of a `Word`, which the caller supplies: PostgreSQL's pg_atomic_*
// in src/pg, std::atomic in the unit tests, so that the code the server runs
// is the code the multi-threaded tests run.  A Word provides
//
//   uint64_t load();                                  // the id word
//   uint64_t fetch_add(uint64_t n);                   // returns the old word
//   bool cas(uint64_t *expected, uint64_t desired);   // updates *expected on failure
//
// The fast path handles the common cases: the millisecond the word holds is
// the clock's and has sequence numbers left (take the next one: one
// fetch-and-add), or the clock has moved past it within the durable mark (move
// the word to the clock's millisecond: one compare-and-swap).  Everything
// else goes to the slow path, under the generator lock.
#pragma once

#ifdef POSTGRES_H
#error "src/core must not see PostgreSQL headers"
#endif

#include <cstdint>

#include "generator.hpp"
#include "id_word.hpp"
#include "layout.hpp"

namespace snowflake {

// What the fast path decides from besides the word.
struct FastView {
    int64_t now_ms;       // wall clock, as a timestamp field
    int64_t node;         // node bits of this node's identity; -1: none
    int64_t reserved_ms;  // the durable mark
};

// The node's identity and durable mark, as read by the fast path.
struct NodeView {
    int64_t node;         // node bits; -1: none
    int64_t reserved_ms;  // the durable mark
};

enum class FastStep {
    Take,        // the word's millisecond is now and has room: add to the word
    Move,        // the clock is past the word's millisecond: swap in `desired`
    WaitNextMs,  // the word's millisecond is now and used up (for this node)
    Slow,        // anything else: the slow path decides
};

struct FastDecision {
    FastStep step;
    uint64_t desired;     // Take / Move: the word after taking `count` ids
    int64_t first_id;     // Take / Move: the first id taken
    int64_t count;        // Take / Move: ids taken (1 .. want)
    int64_t wait_for_ms;  // WaitNextMs: the millisecond to wait for
};

// first_seq: the first sequence number of a new millisecond (0, or a random
// offset in the lower half with random_sequence_start).  Inline: it is most
// of the per-id path.
inline FastDecision decide_fast(uint64_t w, const FastView &v, const Layout &l, int64_t want,
                                int64_t first_seq) {
    const FastDecision slow{FastStep::Slow, 0, 0, 0, 0};
    if (v.node < 0 || v.now_ms < 0)
        return slow;
    if (want < 1)
        want = 1;
    const int64_t ms = word_ms(l, w);
    const int64_t max_seq = l.max_sequence();
    if (v.now_ms == ms) {
        const uint64_t counter = word_counter(l, w);
        // Another node's millisecond (the identity changed) is used up for
        // this one: its ids there could sort below ids already issued.
        if (word_node(l, w) != v.node || counter > static_cast<uint64_t>(max_seq))
            return FastDecision{FastStep::WaitNextMs, 0, 0, 0, ms + 1};
        const int64_t seq = static_cast<int64_t>(counter);
        const int64_t n = want < max_seq - seq + 1 ? want : max_seq - seq + 1;
        return FastDecision{FastStep::Take, w + static_cast<uint64_t>(n),
                            word_base_id(l, w) + seq, n, 0};
    }
    // The clock behind the word (a step back, or borrowing) needs the
    // policies; past the mark or the lifetime needs the slow path too.
    if (v.now_ms < ms || v.now_ms > v.reserved_ms || v.now_ms > l.max_timestamp())
        return slow;
    const int64_t n = want < max_seq - first_seq + 1 ? want : max_seq - first_seq + 1;
    return FastDecision{FastStep::Move,
                        word_pack(l, v.now_ms, v.node, static_cast<uint64_t>(first_seq + n)),
                        l.compose(v.now_ms, v.node, first_seq), n, 0};
}

enum class Attempt { Issued, Retry, WaitNextMs, Slow };

struct AttemptResult {
    Attempt outcome;
    int64_t first_id;     // Issued
    int64_t count;        // Issued
    int64_t wait_for_ms;  // WaitNextMs
};

// One lock-free attempt to take up to `want` ids.  After loading the word it
// reads, in this order:
//   clock()     the wall clock as a timestamp field: after the word, so that
//               it is never older than ids other processes issued (a false
//               step backwards);
//   identity()  the NodeView: after the clock, so that the identity an id
//               carries was in force at a moment no earlier than the id's
//               timestamp.  An identity change also fences and retires the
//               word (switch_identity), so an add or swap prepared under the
//               old identity fails: no id of the old identity is issued once
//               the change is complete.
// With use_fetch_add (see
// fetch_add_safe) a single id is taken with one fetch-and-add; batches and
// moves use compare-and-swap.  Retry: another process changed the word
// first; the caller backs off and tries again.
template <typename Word, typename Clock, typename Identity>
AttemptResult try_fast(Word &word, Clock &&clock, Identity &&identity, const Layout &l,
                       int64_t want, int64_t first_seq, bool use_fetch_add) {
    uint64_t w = word.load();
    FastView v;
    v.now_ms = clock();
    const NodeView n = identity();
    v.node = n.node;
    v.reserved_ms = n.reserved_ms;
    const FastDecision d = decide_fast(w, v, l, want, first_seq);
    switch (d.step) {
    case FastStep::Take:
        if (use_fetch_add && d.count == 1) {
            int64_t id;
            // The word may have moved on since the load: the add takes the
            // next id of whatever millisecond it holds now, if any is left.
            if (word_take(l, word.fetch_add(1), &id))
                return AttemptResult{Attempt::Issued, id, 1, 0};
            return AttemptResult{Attempt::Retry, 0, 0, 0};
        }
        [[fallthrough]];
    case FastStep::Move:
        if (word.cas(&w, d.desired))
            return AttemptResult{Attempt::Issued, d.first_id, d.count, 0};
        return AttemptResult{Attempt::Retry, 0, 0, 0};
    case FastStep::WaitNextMs:
        return AttemptResult{Attempt::WaitNextMs, 0, 0, d.wait_for_ms};
    case FastStep::Slow:
        break;
    }
    return AttemptResult{Attempt::Slow, 0, 0, 0};
}

// Changing the node identity ids are issued under, as the one process that
// changes it does (holding the generator lock, so that no slow path runs
// meanwhile), in three steps:
//   1. fence: the word moves to a used-up word at `fence_ms` or later
//      (word_after_identity_change), so that an add or swap another process
//      prepared on an earlier word fails even if that process then reads
//      the new identity;
//   2. publish(): the new node becomes what the fast path reads;
//   3. retire: the word moves once more, so that an add or swap prepared
//      under the old node (read before step 2) fails.
// Afterwards every id of the new identity is in a millisecond after
// fence_ms, and no id of the old one is issued any more: every id it has
// carries the returned word's millisecond or an earlier one.  max_adders: as
// for word_after_identity_change.
template <typename Word, typename Publish>
uint64_t switch_identity(Word &word, Publish &&publish, const Layout &l, int64_t fence_ms,
                         int64_t max_adders) {
    uint64_t w = word.load();
    uint64_t next = word_after_identity_change(l, w, max_adders, fence_ms);
    while (!word.cas(&w, next))
        next = word_after_identity_change(l, w, max_adders, fence_ms);
    publish();
    w = word.load();
    next = word_after_identity_change(l, w, max_adders);
    while (!word.cas(&w, next))
        next = word_after_identity_change(l, w, max_adders);
    return next;
}

// The slow path, called with the generator lock held: next_ids() on the
// state with the current word and mark loaded into it, and the result
// swapped into the word.  The lock keeps other slow paths out, not the fast
// path: if the word moved meanwhile, decide again.  `now()` reads the clock
// after each load of the word; `req.now_ms` is ignored.  The state's
// bookkeeping is kept only from the attempt that counted.
template <typename Word, typename Now>
Result take_locked(Word &word, Now &&now, GeneratorState *state, const Layout &l,
                   int64_t reserved_ms, Request req) {
    for (;;) {
        uint64_t w = word.load();
        req.now_ms = now();
        GeneratorState next = *state;
        adopt_word(&next, l, w);
        next.reserved_ms = reserved_ms;
        const Result r = next_ids(&next, l, req);
        if (r.outcome == Outcome::Issued && !word.cas(&w, word_of(next, l)))
            continue;
        *state = next;
        return r;
    }
}

}  // namespace snowflake
