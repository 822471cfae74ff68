// Test helpers for the generator: a fake wall clock and a driver loop that
// reacts to next_ids() outcomes the way the PostgreSQL layer does.
#pragma once

#include <cstdint>
#include <random>

#include "generator.hpp"
#include "layout.hpp"

namespace snowflake_test {

// The wall clock as a timestamp field (ms since the layout's epoch).
struct FakeClock {
    int64_t now_ms;

    explicit FakeClock(int64_t start_ms = 1000000) : now_ms(start_ms) {}
    void advance(int64_t ms = 1) { now_ms += ms; }
    void step_back(int64_t ms) { now_ms -= ms; }
    void set(int64_t ms) { now_ms = ms; }
};

// The per-node settings that go into every Request.
struct NodeConfig {
    int64_t datacenter_id = 1;
    int64_t worker_id = 1;
    snowflake::ClockPolicy policy = snowflake::ClockPolicy::Borrow;
    int64_t max_backward_ms = 10000;
    bool random_start = false;
};

inline snowflake::Request make_request(const FakeClock &clock, const NodeConfig &node,
                                       int64_t count = 1, uint32_t random = 0) {
    snowflake::Request r;
    r.now_ms = clock.now_ms;
    r.datacenter_id = node.datacenter_id;
    r.worker_id = node.worker_id;
    r.policy = node.policy;
    r.max_backward_ms = node.max_backward_ms;
    r.count = count;
    r.random_start = node.random_start;
    r.random = random;
    return r;
}

struct DriveStats {
    int sequence_waits = 0;   // SequenceExhausted outcomes seen
    int clock_waits = 0;      // ClockBehindWait outcomes seen
    int reservations = 0;     // NeedReservation outcomes seen
};

// Calls next_ids until it returns something other than a "retry" outcome:
//  - SequenceExhausted / ClockBehindWait: "sleep", i.e. move the fake clock
//    forward to wait_for_ms, and retry;
//  - NeedReservation: extend state->reserved_ms (the durable mark) to
//    wait_for_ms + reserve_ahead_ms, as the reserver would, and retry.
// With rng non-null, every call gets a fresh Request::random.
inline snowflake::Result drive_next_ids(snowflake::GeneratorState *state,
                                        const snowflake::Layout &layout, FakeClock *clock,
                                        const NodeConfig &node, int64_t count = 1,
                                        std::mt19937 *rng = nullptr,
                                        int64_t reserve_ahead_ms = 1000,
                                        DriveStats *stats = nullptr, int max_rounds = 10000) {
    snowflake::Result r{};
    for (int round = 0; round < max_rounds; round++) {
        const uint32_t random = rng ? static_cast<uint32_t>((*rng)()) : 0u;
        r = snowflake::next_ids(state, layout, make_request(*clock, node, count, random));
        switch (r.outcome) {
        case snowflake::Outcome::SequenceExhausted:
        case snowflake::Outcome::ClockBehindWait:
            if (stats) {
                if (r.outcome == snowflake::Outcome::SequenceExhausted)
                    stats->sequence_waits++;
                else
                    stats->clock_waits++;
            }
            if (clock->now_ms < r.wait_for_ms)
                clock->set(r.wait_for_ms);
            continue;
        case snowflake::Outcome::NeedReservation:
            if (stats)
                stats->reservations++;
            state->reserved_ms = r.wait_for_ms + reserve_ahead_ms;
            continue;
        default:
            return r;
        }
    }
    return r;
}

}  // namespace snowflake_test
