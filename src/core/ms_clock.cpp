#include "ms_clock.hpp"

namespace snowflake {

void ms_clock_update(MsClock *c, uint64_t tick, int64_t unix_ns, double ticks_per_us) {
    const int64_t ms = unix_ns >= 0 ? unix_ns / 1000000 : -((-unix_ns + 999999) / 1000000);
    const int64_t left_ns = (ms + 1) * 1000000 - unix_ns;  // 1 .. 1,000,000
    const double trusted_us = left_ns * 0.9 / 1000.0 - 20.0;
    c->read_tick = tick;
    c->unix_ms = ms;
    c->valid_until = trusted_us > 0 ? tick + static_cast<uint64_t>(trusted_us * ticks_per_us) : tick;
}

void ms_clock_measure_rate(MsClock *c, uint64_t tick, int64_t mono_ns) {
    if (c->rate_mono_ns < 0 || tick < c->rate_tick || mono_ns < c->rate_mono_ns) {
        c->rate_tick = tick;
        c->rate_mono_ns = mono_ns;
        return;
    }
    const int64_t dns = mono_ns - c->rate_mono_ns;
    if (dns < 1000000)
        return;  // too short to measure well: keep the older point
    const double observed = static_cast<double>(tick - c->rate_tick) * 1000.0 / static_cast<double>(dns);
    if (c->ticks_per_us > 0 && (observed > c->ticks_per_us * 1.01 || observed < c->ticks_per_us * 0.99))
        c->ticks_per_us = observed;
    c->rate_tick = tick;
    c->rate_mono_ns = mono_ns;
}

}  // namespace snowflake
