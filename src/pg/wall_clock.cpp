#include <cstdio>
#include <cstring>
#include <ctime>

#include "../core/ms_clock.hpp"
#include "wall_clock.hpp"

namespace sfpg {

namespace {

// Measured in the postmaster, inherited by every process, which then keeps
// re-measuring its own copy (ms_clock.ticks_per_us).  0 = never trust ticks.
double ticks_per_us = 0;

// This process's cache of the current millisecond.
snowflake::MsClock ms_clock;

int64_t realtime_ns() {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

int64_t monotonic_ns() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

#if defined(__x86_64__)
// RDTSCP waits until every earlier instruction has executed, so a tick read
// after loading the id word is not taken before that load (plain RDTSC may
// run ahead of it); the memory clobber keeps the compiler from moving loads
// across it either.  Written out rather than __rdtscp(&aux): a local whose
// address is taken gives every id a stack-protector check.
inline uint64_t ticks() {
    uint32_t lo, hi;
    __asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi) : : "rcx", "memory");
    return (static_cast<uint64_t>(hi) << 32) | lo;
}

// The kernel only picks "tsc" as its clocksource when the TSC is invariant
// and synchronised across CPUs: then ticks read on different CPUs compare.
bool kernel_trusts_tsc() {
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (!f)
        return false;
    char buf[32] = {0};
    const bool ok = fgets(buf, sizeof buf, f) != nullptr && strncmp(buf, "tsc", 3) == 0 &&
                    (buf[3] == '\n' || buf[3] == '\0');
    fclose(f);
    return ok;
}
#endif

}  // namespace

int64_t wall_clock_unix_ms() { return realtime_ns() / 1000000; }

#if defined(__x86_64__)
namespace {

// A real clock read at tick t, kept for the calls that follow.  Out of line:
// its timespecs would give the per-id caller a stack-protector check.
__attribute__((noinline)) int64_t refresh_id_clock(uint64_t t) {
    if (ms_clock.ticks_per_us == 0)
        ms_clock.ticks_per_us = ticks_per_us;
    const int64_t ns = realtime_ns();
    snowflake::ms_clock_measure_rate(&ms_clock, t, monotonic_ns());
    snowflake::ms_clock_update(&ms_clock, t, ns, ms_clock.ticks_per_us);
    return ns / 1000000;
}

}  // namespace
#endif

int64_t id_clock_unix_ms() {
#if defined(__x86_64__)
    if (ticks_per_us > 0) {
        const uint64_t t = ticks();
        if (snowflake::ms_clock_proves(ms_clock, t))
            return ms_clock.unix_ms;
        return refresh_id_clock(t);
    }
#endif
    return wall_clock_unix_ms();
}

void calibrate_id_clock() {
    ticks_per_us = 0;
#if defined(__x86_64__)
    if (!kernel_trusts_tsc())
        return;
    // 5 ms against CLOCK_MONOTONIC: well within the 10% margin ms_clock keeps.
    const int64_t n0 = monotonic_ns();
    const uint64_t t0 = ticks();
    int64_t n1;
    do
        n1 = monotonic_ns();
    while (n1 - n0 < 5000000);
    const uint64_t t1 = ticks();
    if (t1 > t0)
        ticks_per_us = static_cast<double>(t1 - t0) * 1000.0 / static_cast<double>(n1 - n0);
#endif
}

}  // namespace sfpg
