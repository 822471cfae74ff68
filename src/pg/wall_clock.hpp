// The wall clock as the generator sees it.
#pragma once

#include <cstdint>

namespace sfpg {

// Unix ms from CLOCK_REALTIME (a real read, always).
int64_t wall_clock_unix_ms();

// Unix ms for the id path: a real read, or the millisecond of the last real
// read while the CPU tick counter proves it has not ended (see
// core/ms_clock.hpp).  Call it while holding the generator lock, so that
// "now" is never older than ids other backends issued before we got the lock.
int64_t id_clock_unix_ms();

// Decides whether the tick counter can be trusted and calibrates it; called
// once in the postmaster so every backend inherits the result.
void calibrate_id_clock();

}  // namespace sfpg
