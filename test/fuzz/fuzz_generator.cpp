// Fuzzes the id path (src/core/id_path.*, id_word.hpp, generator.*) the way
// the PostgreSQL layer drives it -- the lock-free attempt first, the slow
// path's next_ids() when that declines -- with a fuzzed clock and settings.
//
// The input is a program: a layout and a start, then operations -- the wall
// clock moving forward or back by fuzzed amounts or jumping anywhere, policy,
// bound, node and random_start changes, batches of ids, the reserver
// extending the durable mark, crashes (restart from the durable mark) and
// clean shutdowns (the mark lowered to the id word's millisecond, then a
// restart).
//
// Invariants (abort() on violation):
//   - every Issued id is greater than every id issued before it, across
//     restarts (strictly increasing, hence unique);
//   - an Issued batch is 1..count consecutive ids in one millisecond, carries
//     the request's node, a timestamp <= the durable reservation and the
//     layout's lifetime, and above the mark of the last restart;
//   - the policy decides the outcome: error never waits or borrows, wait
//     never errors or borrows, borrow never runs ahead by more than its bound
//     and never waits;
//   - a refusal leaves the id state unchanged, and a clock that moved past
//     the last id, within the reservation and lifetime, always gets ids.
#include "fuzz_input.hpp"
#include "generator.hpp"
#include "id_path.hpp"
#include "id_word.hpp"
#include "layout.hpp"

using namespace snowflake;

namespace {

// One process's view of the word: no other process changes it.
struct PlainWord {
    uint64_t *w;
    uint64_t load() { return *w; }
    uint64_t fetch_add(uint64_t n) {
        const uint64_t old = *w;
        *w += n;
        return old;
    }
    bool cas(uint64_t *expected, uint64_t desired) {
        if (*w != *expected) {
            *expected = *w;
            return false;
        }
        *w = desired;
        return true;
    }
};

struct World {
    Layout layout;
    GeneratorState s;           // the slow path's bookkeeping
    uint64_t word = 0;          // the id word: the truth about the last id
    int64_t reserved = -1;      // the durable mark in force (shared memory)
    bool fetch_add = true;
    int64_t now = 0;            // wall clock as a timestamp field
    int64_t durable = -1;       // the mark in the state file
    int64_t restart_mark = -1;  // the mark the current run started after
    int64_t max_issued = -1;    // the largest id ever issued, over all runs
    int64_t dc = 0, worker = 0;
    ClockPolicy policy = ClockPolicy::Error;
    int64_t bound = 1000;
    bool random_start = false;
    uint64_t issued_this_run = 0;
};

Layout pick_layout(fuzz::Input &in) {
    Layout l;
    const int dc = static_cast<int>(in.range(0, 12));
    const int wk = static_cast<int>(in.range(0, 12));
    const int seq = static_cast<int>(in.range(1, 28));
    if (validate_widths(dc, wk, seq) == LayoutError::None) {
        l.datacenter_bits = dc;
        l.worker_bits = wk;
        l.sequence_bits = seq;
    }
    return l;
}

// Clock values stay within a window around the layout's whole lifetime, so
// arithmetic on them cannot overflow and both ends are reachable.
constexpr int64_t kSlack = int64_t{1} << 24;

int64_t clamp_clock(const World &w, int64_t t) {
    const int64_t lo = -kSlack, hi = w.layout.max_timestamp() + kSlack;
    return t < lo ? lo : t > hi ? hi : t;
}

void restart(World *w, int64_t mark) {
    start_after_mark(&w->s, mark);
    FUZZ_CHECK(w->s.last_ms == (mark < 0 ? -1 : mark));
    FUZZ_CHECK(w->s.reserved_ms == w->s.last_ms);
    w->word = word_of(w->s, w->layout);
    w->reserved = w->s.reserved_ms;
    int64_t id;
    FUZZ_CHECK(!word_take(w->layout, w->word, &id));  // the mark's ms is used up
    w->restart_mark = mark;
    w->issued_this_run = 0;
}

int64_t word_last_ms(const World &w) { return word_ms(w.layout, w.word); }

// The reserver: writes a mark `window` ms past max(now, last), then publishes it.
void reserve(World *w, int64_t window) {
    const int64_t last = word_last_ms(*w);
    const int64_t base = w->now > last ? w->now : last;
    if (base < 0)
        return;
    int64_t mark = base + window;
    if (mark > w->layout.max_timestamp())
        mark = w->layout.max_timestamp();
    if (mark <= w->reserved)
        return;
    w->durable = mark;
    w->reserved = mark;
}

// A clean shutdown: once no process can issue, the postmaster lowers the
// durable mark to the word's millisecond.
void shut_down(World *w) {
    const int64_t exact = word_last_ms(*w);
    FUZZ_CHECK(w->max_issued < 0 || (w->max_issued >> w->layout.timestamp_shift()) <= exact);
    if (w->durable >= 0 && exact < w->durable)
        w->durable = exact;
}

void check_issued(const World &w, const GeneratorState &before, const Request &req,
                  const Result &r) {
    const Layout &l = w.layout;
    const int64_t want = req.count < 1 ? 1 : req.count;
    FUZZ_CHECK(r.count >= 1 && r.count <= want);
    FUZZ_CHECK(r.first_id > w.max_issued);
    FUZZ_CHECK(r.first_id > snowflake::last_issued_id(before, l));
    const int64_t last = r.first_id + (r.count - 1);
    FUZZ_CHECK(last >= r.first_id);  // no overflow
    IdParts a{}, b{};
    FUZZ_CHECK(decompose(l, r.first_id, &a) && decompose(l, last, &b));
    FUZZ_CHECK(a.timestamp == b.timestamp);
    FUZZ_CHECK(b.sequence - a.sequence == r.count - 1);
    FUZZ_CHECK(a.datacenter_id == req.datacenter_id && a.worker_id == req.worker_id);
    FUZZ_CHECK(b.datacenter_id == req.datacenter_id && b.worker_id == req.worker_id);
    const int64_t ms = a.timestamp;
    FUZZ_CHECK(ms <= before.reserved_ms);
    FUZZ_CHECK(ms <= l.max_timestamp());
    FUZZ_CHECK(ms > w.restart_mark);
    FUZZ_CHECK(ms >= before.last_ms);
    if (req.policy == ClockPolicy::Borrow)
        FUZZ_CHECK(ms >= req.now_ms && ms - req.now_ms <= req.max_backward_ms);
    else
        FUZZ_CHECK(ms == req.now_ms);  // error and wait never run ahead of the clock
    if (ms > before.last_ms && req.random_start)
        FUZZ_CHECK(a.sequence <= l.max_sequence() / 2);
    if (ms > before.last_ms && !req.random_start)
        FUZZ_CHECK(a.sequence == 0);
    // The state now describes exactly this batch.
    FUZZ_CHECK(w.s.last_ms == ms && snowflake::last_issued_id(w.s, w.layout) == last &&
               w.s.last_seq == b.sequence);
    FUZZ_CHECK(w.s.reserved_ms == before.reserved_ms);
    FUZZ_CHECK(w.word == word_of(w.s, w.layout));
}

void check_refused(const World &w, const GeneratorState &before, const Request &req,
                   const Result &r) {
    const GeneratorState &s = w.s;
    FUZZ_CHECK(s.last_ms == before.last_ms && s.last_seq == before.last_seq &&
               s.last_node == before.last_node && s.reserved_ms == before.reserved_ms);
    const int64_t now = req.now_ms;
    switch (r.outcome) {
    case Outcome::Issued:
        break;
    case Outcome::ClockBeforeEpoch:
        FUZZ_CHECK(now < 0 && r.behind_ms == -now);
        return;
    case Outcome::SequenceExhausted:
        FUZZ_CHECK(now == before.last_ms && r.wait_for_ms == before.last_ms + 1);
        break;
    case Outcome::ClockBehindWait:
        FUZZ_CHECK(req.policy == ClockPolicy::Wait && now < before.last_ms);
        FUZZ_CHECK(r.behind_ms == before.last_ms - now);
        FUZZ_CHECK(r.wait_for_ms == before.last_ms || r.wait_for_ms == before.last_ms + 1);
        break;
    case Outcome::ClockBehindError:
        FUZZ_CHECK(req.policy == ClockPolicy::Error && now < before.last_ms);
        FUZZ_CHECK(r.behind_ms == before.last_ms - now);
        break;
    case Outcome::BorrowLimit:
        FUZZ_CHECK(req.policy == ClockPolicy::Borrow);
        FUZZ_CHECK(r.behind_ms > req.max_backward_ms);
        break;
    case Outcome::NeedReservation:
        FUZZ_CHECK(r.wait_for_ms > before.reserved_ms);
        FUZZ_CHECK(r.wait_for_ms <= w.layout.max_timestamp());
        break;
    case Outcome::LifetimeOver:
        FUZZ_CHECK(r.wait_for_ms > w.layout.max_timestamp());
        break;
    }
    FUZZ_CHECK(now >= 0);
    // Progress: a clock past the last id, within reservation and lifetime,
    // is never refused.
    FUZZ_CHECK(!(now > before.last_ms && now <= before.reserved_ms &&
                 now <= w.layout.max_timestamp()));
}

// An id the lock-free path took: at the clock, in one millisecond, above
// everything before, within the mark and the lifetime.
void check_fast(const World &w, const Request &req, int64_t want, const AttemptResult &a) {
    const Layout &l = w.layout;
    FUZZ_CHECK(a.count >= 1 && a.count <= want);
    FUZZ_CHECK(a.first_id > w.max_issued);
    const int64_t last = a.first_id + (a.count - 1);
    IdParts p{}, q{};
    FUZZ_CHECK(decompose(l, a.first_id, &p) && decompose(l, last, &q));
    FUZZ_CHECK(p.timestamp == q.timestamp && p.timestamp == req.now_ms);
    FUZZ_CHECK(p.timestamp <= w.reserved && p.timestamp <= l.max_timestamp());
    FUZZ_CHECK(p.timestamp > w.restart_mark);
    FUZZ_CHECK(p.datacenter_id == req.datacenter_id && p.worker_id == req.worker_id);
    FUZZ_CHECK(q.sequence - p.sequence == a.count - 1);
    FUZZ_CHECK(word_ms(l, w.word) == p.timestamp);
}

// One call with the world's current settings, as take_ids makes it, checked.
Result request(World *w, int64_t count, uint32_t random) {
    Request req{};
    req.now_ms = w->now;
    req.datacenter_id = w->dc;
    req.worker_id = w->worker;
    req.policy = w->policy;
    req.max_backward_ms = w->bound;
    req.count = count;
    req.random_start = w->random_start;
    req.random = random;
    const int64_t want = count < 1 ? 1 : count;
    PlainWord word{&w->word};
    const FastView v{w->now, w->layout.node_bits(w->dc, w->worker), w->reserved};
    const AttemptResult a = try_fast(word, [&v] { return v.now_ms; },
                                     [&v] { return snowflake::NodeView{v.node, v.reserved_ms}; },
                                     w->layout, count,
                                     first_sequence(w->layout, req), w->fetch_add);
    FUZZ_CHECK(a.outcome != Attempt::Retry);  // nobody else changes the word
    if (a.outcome == Attempt::Issued) {
        check_fast(*w, req, want, a);
        w->max_issued = a.first_id + (a.count - 1);
        w->issued_this_run += static_cast<uint64_t>(a.count);
        return Result{Outcome::Issued, a.first_id, a.count, 0, 0};
    }
    if (a.outcome == Attempt::WaitNextMs) {
        FUZZ_CHECK(a.wait_for_ms == word_last_ms(*w) + 1 && w->now == word_last_ms(*w));
        return Result{Outcome::SequenceExhausted, 0, 0, a.wait_for_ms, 0};
    }
    GeneratorState before = w->s;
    adopt_word(&before, w->layout, w->word);
    before.reserved_ms = w->reserved;
    const uint64_t word_before = w->word;
    const Result r = take_locked(word, [w] { return w->now; }, &w->s, w->layout, w->reserved, req);
    if (r.outcome == Outcome::Issued) {
        check_issued(*w, before, req, r);
        w->max_issued = r.first_id + (r.count - 1);
        w->issued_this_run += static_cast<uint64_t>(r.count);
    } else {
        FUZZ_CHECK(w->word == word_before);
        check_refused(*w, before, req, r);
    }
    return r;
}

// What take_ids does with a refusal, as far as the clock and reserver go.
void take_ids(World *w, fuzz::Input &in) {
    const uint8_t shape = in.byte();
    int64_t count = shape & 0x80 ? in.range(-3, 70000) : in.range(1, 16);
    for (int attempt = 0; attempt < 4; attempt++) {
        const Result r = request(w, count, in.u32());
        switch (r.outcome) {
        case Outcome::Issued:
            count -= r.count;
            if (count <= 0)
                return;
            break;
        case Outcome::SequenceExhausted:  // spin to the next millisecond
            w->now = clamp_clock(*w, r.wait_for_ms);
            break;
        case Outcome::ClockBehindWait:  // the wait may succeed or time out
            if (shape & 1)
                w->now = clamp_clock(*w, r.wait_for_ms);
            else
                return;
            break;
        case Outcome::NeedReservation:  // wake the reserver; it writes past the clock
            reserve(w, (r.wait_for_ms - w->now > 0 ? r.wait_for_ms - w->now : 0) +
                           in.range(0, 2000));
            break;
        default:
            return;
        }
    }
}

// As src/pg's node identity does, a change of node fences the word at the
// clock and retires it (one thread: no adds in flight).
void set_node(World *w, fuzz::Input &in) {
    const int64_t before = w->layout.node_bits(w->dc, w->worker);
    w->dc = in.range(0, w->layout.max_datacenter_id());
    w->worker = in.range(0, w->layout.max_worker_id());
    if (w->layout.node_bits(w->dc, w->worker) != before)
        w->word = word_after_identity_change(w->layout, w->word, 0, w->now - 1);
}

void step(World *w, fuzz::Input &in) {
    const uint8_t op = in.byte();
    switch (op % 16) {
    case 0:
    case 1:
    case 2:
    case 3:
        take_ids(w, in);
        break;
    case 4:
        w->now = clamp_clock(*w, w->now + in.range(0, 3));
        break;
    case 5:
        w->now = clamp_clock(*w, w->now + in.range(0, int64_t{1} << (op >> 4 << 1)));
        break;
    case 6:
        w->now = clamp_clock(*w, w->now - in.range(1, 3));
        break;
    case 7:
        w->now = clamp_clock(*w, w->now - in.range(1, int64_t{1} << (op >> 4 << 1)));
        break;
    case 8:
        w->now = clamp_clock(*w, in.range(-kSlack, w->layout.max_timestamp() + kSlack));
        break;
    case 9:
        w->policy = static_cast<ClockPolicy>(in.byte() % 3);
        break;
    case 10:
        w->bound = (op & 0x10) ? in.range(0, 2147483647) : in.range(0, 50);
        break;
    case 11:
        set_node(w, in);
        break;
    case 12:
        w->random_start = !w->random_start;
        break;
    case 13:
        reserve(w, in.range(0, op & 0x10 ? 100000 : 1000));
        break;
    case 14:  // crash: only the durable mark survives
        restart(w, w->durable);
        break;
    case 15:  // clean shutdown and restart
        shut_down(w);
        restart(w, w->durable);
        if (op & 0x10)
            w->fetch_add = !w->fetch_add;
        break;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz::Input in(data, size);
    World w;
    w.layout = pick_layout(in);
    set_node(&w, in);
    w.policy = static_cast<ClockPolicy>(in.byte() % 3);
    w.bound = in.range(0, 5000);
    w.random_start = in.byte() & 1;
    // Start anywhere in the lifetime, often near its start or end.
    const uint8_t where = in.byte();
    const int64_t max_ts = w.layout.max_timestamp();
    if (where % 3 == 0)
        w.now = in.range(-100, 100000);
    else if (where % 3 == 1)
        w.now = in.range(max_ts - 100000, max_ts + 100);
    else
        w.now = in.range(0, max_ts);
    // An earlier life may have left a mark, never above the real past.
    const int64_t mark0 = (where & 8) ? clamp_clock(w, w.now + in.range(-2000, 2000)) : -1;
    w.durable = mark0 < 0 ? -1 : mark0;
    restart(&w, w.durable);
    for (int steps = 0; !in.empty() && steps < 4096; steps++)
        step(&w, in);
    return 0;
}
