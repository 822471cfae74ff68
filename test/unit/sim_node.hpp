// A node's id path without PostgreSQL, for the id-path tests: the shared id
// word, durable mark and identity as std::atomic, the generator lock as a
// std::mutex, and a fake clock.  take() drives the core's templates the way
// src/pg/id_source.cpp does (fast path, slow path under the lock, waits after
// releasing it), so many threads can stand in for many backends.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>

#include "generator.hpp"
#include "id_path.hpp"
#include "id_word.hpp"
#include "layout.hpp"

namespace snowflake_test {

// std::atomic behind the Word interface of id_path.hpp.
struct AtomicWord {
    std::atomic<uint64_t> *w;
    uint64_t load() { return w->load(); }
    uint64_t fetch_add(uint64_t n) { return w->fetch_add(n); }
    bool cas(uint64_t *expected, uint64_t desired) {
        return w->compare_exchange_strong(*expected, desired);
    }
};

struct SimNode {
    snowflake::Layout layout;
    std::atomic<uint64_t> word{0};
    std::atomic<int64_t> reserved_ms{-1};
    std::atomic<int64_t> node{-1};      // node bits; -1: no identity
    std::atomic<int64_t> now_ms{1000};  // the fake wall clock
    std::atomic<bool> reservation_wanted{false};
    bool use_fetch_add = true;
    int64_t max_adders = 64;  // processes that may add at once (fetch-and-add mode)
    // > 0: a NeedReservation is answered at once, as if the reserver ran
    // then, with a mark this far ahead; 0: wait for someone else to reserve.
    int64_t auto_reserve_ms = 0;

    std::mutex lock;                  // the generator lock
    snowflake::GeneratorState gen;    // guarded by lock
    int64_t datacenter_id = 0;        // guarded by lock
    int64_t worker_id = -1;           // guarded by lock

    SimNode(const snowflake::Layout &l, int64_t mark_ms) : layout(l) {
        snowflake::start_after_mark(&gen, mark_ms);
        word = snowflake::word_of(gen, l);
        reserved_ms = gen.reserved_ms;
    }

    // As src/pg's node identity does: under the lock, the word fenced at
    // `fence_ms`, the new node published, the word retired
    // (snowflake::switch_identity), so that adds and swaps prepared under
    // the old identity fail.  Returns the word after the change.
    uint64_t set_identity(int64_t dc, int64_t worker, int64_t fence_ms = -1) {
        std::lock_guard<std::mutex> g(lock);
        const int64_t next = worker < 0 ? -1 : layout.node_bits(dc, worker);
        datacenter_id = dc;
        worker_id = worker;
        if (node.load() == next)
            return word.load();
        AtomicWord w{&word};
        return snowflake::switch_identity(w, [this, next] { node = next; }, layout, fence_ms,
                                          use_fetch_add ? max_adders : 0);
    }

    // What the reserver does: a mark `window` ms past max(clock, word).
    void reserve_ahead(int64_t window) {
        const int64_t word_ms = snowflake::word_ms(layout, word.load());
        const int64_t now = now_ms.load();
        const int64_t mark = (now > word_ms ? now : word_ms) + window;
        int64_t r = reserved_ms.load();
        while (r < mark && !reserved_ms.compare_exchange_weak(r, mark)) {
        }
        reservation_wanted = false;
    }
};

struct TakeStats {
    uint64_t fast = 0, slow = 0, retries = 0, waits = 0;
};

struct TakeResult {
    snowflake::Outcome outcome;  // Issued, or the refusal that ends the call
    int64_t first_id;
    int64_t count;
};

// Takes up to `want` ids as a backend would.  Waits (for the next
// millisecond, the clock, a reservation) spin with yields on the fake clock
// and mark; errors (clock behind under `error`, borrow past its bound, the
// lifetime) come back as the outcome.
inline TakeResult take(SimNode &n, int64_t want, snowflake::ClockPolicy policy,
                       int64_t max_backward_ms, TakeStats *stats = nullptr) {
    TakeStats local;
    TakeStats &st = stats ? *stats : local;
    snowflake::Request req{};
    req.policy = policy;
    req.max_backward_ms = max_backward_ms;
    req.count = want;
    const int64_t first_seq = snowflake::first_sequence(n.layout, req);
    AtomicWord word{&n.word};
    auto clock = [&n] { return n.now_ms.load(); };
    auto identity = [&n] { return snowflake::NodeView{n.node.load(), n.reserved_ms.load()}; };
    // As id_source.cpp's spin_to: until the clock leaves the millisecond
    // before `ms` -- forward, or back (then the policy decides).
    auto spin_to = [&n](int64_t ms) {
        while (n.now_ms.load() == ms - 1)
            std::this_thread::yield();
    };
    auto wait_clock_past = [&n](int64_t ms) {
        while (n.now_ms.load() < ms)
            std::this_thread::yield();
    };
    for (;;) {
        const snowflake::AttemptResult a =
            snowflake::try_fast(word, clock, identity, n.layout, want, first_seq, n.use_fetch_add);
        if (a.outcome == snowflake::Attempt::Issued) {
            st.fast++;
            return TakeResult{snowflake::Outcome::Issued, a.first_id, a.count};
        }
        if (a.outcome == snowflake::Attempt::Retry) {
            st.retries++;
            std::this_thread::yield();
            continue;
        }
        if (a.outcome == snowflake::Attempt::WaitNextMs) {
            st.waits++;
            spin_to(a.wait_for_ms);
            continue;
        }
        snowflake::Result r;
        {
            std::lock_guard<std::mutex> g(n.lock);
            if (n.worker_id < 0)
                return TakeResult{snowflake::Outcome::ClockBeforeEpoch, 0, 0};
            req.datacenter_id = n.datacenter_id;
            req.worker_id = n.worker_id;
            r = snowflake::take_locked(word, [&n] { return n.now_ms.load(); }, &n.gen, n.layout,
                                       n.reserved_ms.load(), req);
            if (r.outcome == snowflake::Outcome::NeedReservation)
                n.reservation_wanted = true;
        }
        switch (r.outcome) {
        case snowflake::Outcome::Issued:
            st.slow++;
            return TakeResult{r.outcome, r.first_id, r.count};
        case snowflake::Outcome::SequenceExhausted:
            st.waits++;
            spin_to(r.wait_for_ms);
            continue;
        case snowflake::Outcome::ClockBehindWait:
            st.waits++;
            wait_clock_past(r.wait_for_ms);
            continue;
        case snowflake::Outcome::NeedReservation:
            if (n.auto_reserve_ms > 0)
                n.reserve_ahead(n.auto_reserve_ms);
            while (n.reserved_ms.load() < r.wait_for_ms)
                std::this_thread::yield();
            continue;
        default:
            return TakeResult{r.outcome, 0, 0};
        }
    }
}

}  // namespace snowflake_test
