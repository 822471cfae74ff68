// A millisecond clock that avoids most system-clock reads.
//
// Reading CLOCK_REALTIME costs ~25 ns here, as much as the rest of the id
// path together.  Within one millisecond, a CPU tick counter that is
// synchronised across CPUs (x86 TSC when the kernel's clocksource is "tsc")
// can prove that the millisecond has not ended yet for ~10 ns.  So: read the
// real clock once, note how many ticks remain until its millisecond ends
// (with a safety margin), and answer from that until the ticks run out or go
// backwards.  Any doubt means a real read.
//
// The tick rate is measured once at start, and again by every process against
// CLOCK_MONOTONIC at its real reads (ms_clock_measure_rate): a rate that
// changes under a running server (a VM migrated live to another host) is
// adopted within a few milliseconds; the 10% margin absorbs smaller errors
// meanwhile.
//
// Only the timestamps' freshness depends on this (never stale by more than
// the millisecond in progress); uniqueness and order never depend on the
// clock at all, and the id path never reports the clock behind on the
// cache's word alone (its slow path reads the real clock).
#pragma once

#ifdef POSTGRES_H
#error "src/core must not see PostgreSQL headers"
#endif

#include <cstdint>

namespace snowflake {

struct MsClock {
    uint64_t read_tick = 0;     // tick counter when the real clock was read
    uint64_t valid_until = 0;   // before this tick, the millisecond is still `unix_ms`
    int64_t unix_ms = 0;
    // The rate this process trusts (0: never trust the ticks), and where it
    // was last measured.
    double ticks_per_us = 0;
    uint64_t rate_tick = 0;
    int64_t rate_mono_ns = -1;
};

// Whether `tick` still proves the known millisecond, c.unix_ms.
inline bool ms_clock_proves(const MsClock &c, uint64_t tick) {
    return tick >= c.read_tick && tick < c.valid_until;
}

// The known millisecond, if `tick` still proves it; false means read the clock.
inline bool ms_clock_current(const MsClock &c, uint64_t tick, int64_t *unix_ms) {
    if (!ms_clock_proves(c, tick))
        return false;
    *unix_ms = c.unix_ms;
    return true;
}

// Records a real reading: unix_ns taken at (or just after) `tick`.
// ticks_per_us is the tick rate; only 90% of the time left in the millisecond
// is trusted, minus 20 us, to absorb calibration error.
void ms_clock_update(MsClock *c, uint64_t tick, int64_t unix_ns, double ticks_per_us);

// Re-measures c->ticks_per_us from `tick` and a CLOCK_MONOTONIC reading taken
// with it (monotonic: a wall-clock step cannot fake a rate), over at least
// 1 ms since the last measurement; adopts a rate more than 1% off.  Ticks
// that went backwards restart the measurement.
void ms_clock_measure_rate(MsClock *c, uint64_t tick, int64_t mono_ns);

}  // namespace snowflake
