// The registry's clock beside a node's.
//
// The registry judges a node's confirmation on its own clock (it gives a
// pair away once its now() is past the holder's confirmed_until, or ten
// minutes after the holder was last seen), while a node dates its ids on
// its own clock.  So that no margin depends on how far the two clocks are
// apart, a node reads the registry's now() in every answer and keeps its
// ids inside what the registry promised, as times on the registry's clock:
//   - a confirmation ends a lease after the request left (the node's clock)
//     and never later than a lease after the registry's now(): a node
//     ahead of the registry has its confirmation shortened by the skew, so
//     its ids carry no time the registry has already handed on
//     (confirmation_end);
//   - a pair given anew (no confirmation in force) is used only for ids
//     dated after the registry's now() at that answer: a node behind the
//     registry waits until its clock is past it, so its ids come after
//     every time the registry judged the pair free at (grant_floor).
// Each answer also measures the skew (node minus registry, within half the
// round trip), which a node compares with its limit (skew_beyond).
#pragma once

#ifdef POSTGRES_H
#error "src/core must not see PostgreSQL headers"
#endif

#include <cstdint>

namespace snowflake {

// One answer of the registry.  Times on the node's clock in ms since 1970,
// the registry's in microseconds since 1970.
struct RegistryReading {
    int64_t asked_unix_ms;     // when the node began the exchange (the lease runs from here)
    int64_t sent_unix_ms;      // when the query left
    int64_t received_unix_ms;  // when its answer came back
    int64_t registry_unix_us;  // the registry's now(): its transaction's start
};

// How far the node's clock is from the registry's: offset_ms is the node's
// minus the registry's, at the middle of the round trip; the true offset
// lies within error_ms of it.
struct ClockSkew {
    int64_t offset_ms;
    int64_t error_ms;
};

ClockSkew measure_skew(const RegistryReading &r);

// Whether the node's clock is proven further than limit_ms from the
// registry's: |offset| less the measurement's error is past the limit.
bool skew_beyond(const ClockSkew &s, int64_t limit_ms);

// The last millisecond a confirmation in this answer covers: lease_ms after
// the node asked, and no later than lease_ms after the registry's now().
int64_t confirmation_end(const RegistryReading &r, int64_t lease_ms);

// The millisecond at or after the registry's now(): ids under a pair given
// in this answer carry later times.
int64_t grant_floor(const RegistryReading &r);

}  // namespace snowflake
