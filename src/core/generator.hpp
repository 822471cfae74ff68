// The id generator's state machine: the slow path.
//
// Most ids are taken lock-free from the shared id word (id_word.hpp,
// id_path.hpp).  Everything else -- the clock behind the last id (the
// policies), the durable mark running out, the lifetime's end, the first id
// after start -- is decided here, by next_ids(), under the generator lock.
// next_ids() is a pure function of (state, layout, request): it reads no clock
// (the caller passes "now" in), never sleeps, never allocates and never
// throws.  When it cannot issue an id right away it says why, and the caller
// decides how to wait -- always after releasing the lock.
#pragma once

#ifdef POSTGRES_H
#error "src/core must not see PostgreSQL headers"
#endif

#include <cstdint>

#include "id_word.hpp"
#include "layout.hpp"

namespace snowflake {

enum class ClockPolicy : int { Error = 0, Wait = 1, Borrow = 2 };

const char *clock_policy_name(ClockPolicy p);

// The state the generator decides from, in the PostgreSQL layer the slow
// path's view: the last id's fields and the durable mark are loaded from the
// shared id word and mark before each call (adopt_word); the rest is
// bookkeeping that only the slow path, under the generator lock, keeps.
// Trivially copyable.
struct GeneratorState {
    int64_t last_ms = -1;   // timestamp field of the last id, or of the mark at start
    int64_t last_seq = 0;   // sequence of the last id issued in last_ms
    int64_t last_node = -1; // node bits of the last id; -1 = last_ms is used up
    int64_t reserved_ms = -1;  // durable high-water mark: ids may carry ms <= this

    bool behind = false;    // the wall clock is currently behind last_ms
    int64_t max_wall_ms = -1;  // the highest wall clock seen (or the mark at start)
    uint64_t backward_events = 0;   // episodes of the clock behind the last id
    int64_t max_backward_ms = 0;    // largest step of the wall clock below its highest reading
    // The highest millisecond this state knows was not read off the wall
    // clock: one it borrowed, or the last id's while the clock was behind it.
    // An id word past it was made from a wall-clock reading (adopt_word).
    int64_t logical_high_ms = -1;
};

// Sets the state for a fresh start after a restart or crash: every id ever
// issued carries a timestamp field <= mark_ms, so the millisecond mark_ms is
// treated as used up.  mark_ms < 0 means nothing was ever issued.
void start_after_mark(GeneratorState *state, int64_t mark_ms);

// The id word that stands for the state's last id (see id_word.hpp).
uint64_t word_of(const GeneratorState &state, const Layout &layout);

// Loads an id word into the state.  A word past logical_high_ms was made by
// the lock-free path from a wall-clock reading: it raises the highest clock
// seen (a later step back is measured from it) and ends an episode of the
// clock behind.  Being an earlier reading, it is never itself a step back.
void adopt_word(GeneratorState *state, const Layout &layout, uint64_t word);

struct Request {
    int64_t now_ms;          // wall clock, as a timestamp field (unix ms - epoch)
    int64_t datacenter_id;   // validated by the caller against the layout
    int64_t worker_id;
    ClockPolicy policy;
    int64_t max_backward_ms; // bound for wait and borrow
    int64_t count;           // ids wanted (>= 1); fewer may be granted
    bool random_start;       // start each new ms at a random sequence offset
    uint32_t random;         // randomness for random_start (caller's PRNG)
};

enum class Outcome {
    Issued,             // first_id .. first_id + count - 1 are the caller's
    SequenceExhausted,  // this ms is used up: retry once the clock passes wait_for_ms
    ClockBehindWait,    // policy wait: retry once the clock reaches wait_for_ms
    ClockBehindError,   // policy error: the clock is behind by behind_ms
    BorrowLimit,        // policy borrow: running ahead by behind_ms would pass the bound
    NeedReservation,    // the next id would pass the durable mark: extend it, retry
    ClockBeforeEpoch,   // now_ms < 0
    LifetimeOver,       // the timestamp field would overflow the layout
};

struct Result {
    Outcome outcome;
    int64_t first_id;    // Issued: the first id granted
    int64_t count;       // Issued: how many consecutive ids were granted
    int64_t wait_for_ms; // SequenceExhausted / ClockBehindWait / NeedReservation: target ms
    int64_t behind_ms;   // how far the clock is behind (or borrowed ahead)
};

// First sequence number of a fresh millisecond.  With random_start it is a
// random offset in the lower half, so at least half the space stays usable.
int64_t first_sequence(const Layout &layout, const Request &req);

// Issues up to req.count consecutive ids, all in one millisecond, each
// greater than every id issued before through this state.
Result next_ids(GeneratorState *state, const Layout &layout, const Request &req);

// The last id the state describes, or -1 if its millisecond is used up.
inline int64_t last_issued_id(const GeneratorState &s, const Layout &layout) {
    return s.last_node < 0 ? -1 : layout.compose(s.last_ms, s.last_node, s.last_seq);
}

}  // namespace snowflake
