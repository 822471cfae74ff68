#include "generator.hpp"

namespace snowflake {

const char *clock_policy_name(ClockPolicy p) {
    switch (p) {
    case ClockPolicy::Error:
        return "error";
    case ClockPolicy::Wait:
        return "wait";
    case ClockPolicy::Borrow:
        return "borrow";
    }
    return "unknown";
}

int64_t first_sequence(const Layout &layout, const Request &req) {
    if (!req.random_start)
        return 0;
    const int64_t half = (layout.max_sequence() + 1) / 2;
    return static_cast<int64_t>(req.random % static_cast<uint64_t>(half));
}

void start_after_mark(GeneratorState *state, int64_t mark_ms) {
    *state = GeneratorState{};
    state->last_ms = mark_ms < 0 ? -1 : mark_ms;
    // last_node = -1 marks last_ms as used up: we do not know which sequence
    // numbers of the mark's millisecond were issued before the restart.
    state->last_node = -1;
    state->reserved_ms = state->last_ms;
    // A clock behind the mark after a restart counts as a step back from it.
    state->max_wall_ms = state->last_ms;
    state->logical_high_ms = state->last_ms;
}

uint64_t word_of(const GeneratorState &s, const Layout &layout) {
    if (s.last_node < 0)
        return word_used_up(layout, s.last_ms);
    return word_pack(layout, s.last_ms, s.last_node, static_cast<uint64_t>(s.last_seq) + 1);
}

namespace {

Result make(Outcome o, int64_t wait_for_ms = 0, int64_t behind_ms = 0) {
    return Result{o, 0, 0, wait_for_ms, behind_ms};
}

// A step is measured from the highest wall clock seen, not from the last id:
// while borrowing, the last id runs ahead of the clock by our doing, not the
// clock's; and a second step during one episode still counts in full.
void note_wall_clock(GeneratorState *s, int64_t now) {
    if (now >= s->max_wall_ms)
        s->max_wall_ms = now;
    else if (s->max_wall_ms - now > s->max_backward_ms)
        s->max_backward_ms = s->max_wall_ms - now;
}

// Counts an episode of the clock being behind the last id, once.
void note_clock_behind(GeneratorState *s) {
    if (s->behind)
        return;
    s->behind = true;
    s->backward_events++;
}

}  // namespace

void adopt_word(GeneratorState *s, const Layout &layout, uint64_t word) {
    const int64_t ms = word_ms(layout, word);
    const uint64_t counter = word_counter(layout, word);
    if (ms > s->logical_high_ms) {
        // A wall-clock reading of the fast path's, taken earlier: it raises
        // the highest clock seen, but is no step back from a later reading
        // (the slow path may have read the clock since), nor is the word a
        // fresh node starts with.
        if (ms > s->max_wall_ms)
            s->max_wall_ms = ms;
        s->behind = false;
    }
    s->last_ms = ms;
    if (counter > static_cast<uint64_t>(layout.max_sequence())) {
        s->last_node = -1;
        s->last_seq = layout.max_sequence();
    } else {
        // A word made by issuing has counter >= 1: last_seq >= 0.
        s->last_node = word_node(layout, word);
        s->last_seq = static_cast<int64_t>(counter) - 1;
    }
}

Result next_ids(GeneratorState *s, const Layout &layout, const Request &req) {
    const int64_t now = req.now_ms;
    if (now < 0)
        return make(Outcome::ClockBeforeEpoch, 0, now == INT64_MIN ? INT64_MAX : -now);

    note_wall_clock(s, now);
    const int64_t max_seq = layout.max_sequence();
    const int64_t node = layout.node_bits(req.datacenter_id, req.worker_id);
    const int64_t last = s->last_ms;
    // The last millisecond can take more ids only from the same node (node
    // bits sit above the sequence, so another node's ids there could sort
    // below ids already issued) and while its sequence lasts.
    const bool last_open = s->last_node == node && s->last_seq < max_seq;

    int64_t ms;
    int64_t seq;
    if (now > last) {
        ms = now;
        seq = first_sequence(layout, req);
    } else {
        if (now < last) {
            note_clock_behind(s);
            if (last > s->logical_high_ms)
                s->logical_high_ms = last;
            if (req.policy == ClockPolicy::Error)
                return make(Outcome::ClockBehindError, 0, last - now);
            if (req.policy == ClockPolicy::Wait)
                return make(Outcome::ClockBehindWait, last_open ? last : last + 1, last - now);
        }
        if (last_open) {
            ms = last;
            seq = s->last_seq + 1;
        } else if (now == last) {
            return make(Outcome::SequenceExhausted, last + 1);
        } else {
            // borrow: the wall clock is behind and this ms is used up, so
            // count on into the next logical millisecond.
            ms = last + 1;
            seq = first_sequence(layout, req);
        }
        if (ms - now > req.max_backward_ms)
            return make(Outcome::BorrowLimit, 0, ms - now);
    }

    if (ms > layout.max_timestamp())
        return make(Outcome::LifetimeOver, ms);
    if (ms > s->reserved_ms)
        return make(Outcome::NeedReservation, ms);

    const int64_t want = req.count < 1 ? 1 : req.count;
    const int64_t room = max_seq - seq + 1;
    const int64_t n = want < room ? want : room;
    const int64_t first = layout.compose(ms, node, seq);

    s->last_ms = ms;
    s->last_seq = seq + (n - 1);
    s->last_node = node;
    s->behind = now < ms;
    if (ms > now && ms > s->logical_high_ms)
        s->logical_high_ms = ms;
    return Result{Outcome::Issued, first, n, 0, 0};
}

}  // namespace snowflake
