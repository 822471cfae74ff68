// Id bounds of conditions on an id's time.
//
// An id carries a whole millisecond: ts(id) = epoch_ms + (id >> timestamp_shift)
// ms.  Every id made in one millisecond lies between the smallest and the
// largest id of that millisecond, and the ids of later milliseconds are all
// larger, so a condition "ts(id) >= t" (or >, <=, <) on a time t holds for
// exactly the ids on one side of one id bound.  Times carry finer units
// (PostgreSQL's are microseconds), so a time is given here as the millisecond
// it falls in and whether it lies strictly inside it.
//
// These bounds are what lets a time condition use an index on the id: the
// planner is offered "id >= first_id(...)" beside "ts(id) >= t", and the two
// are equivalent for every non-negative id, so the index skips no row the
// condition holds for.
#pragma once

#ifdef POSTGRES_H
#error "src/core must not see PostgreSQL headers"
#endif

#include <cstdint>

#include "layout.hpp"

namespace snowflake {

// A finite time, to the millisecond: floor_ms = floor(t / 1 ms) as Unix ms;
// sub_ms: t lies strictly after the start of that millisecond.
struct TimePoint {
    int64_t floor_ms;
    bool sub_ms;
};

// The comparison of "ts(id) CMP t".
enum class TimeCmp {
    AtOrAfter,   // ts(id) >= t
    After,       // ts(id) >  t
    AtOrBefore,  // ts(id) <= t
    Before,      // ts(id) <  t
};

// Smallest id made in millisecond unix_ms or later: 0 when unix_ms is before
// the epoch; false when unix_ms is past the layout's lifetime (no id).
bool first_id_from_ms(const Layout &layout, int64_t unix_ms, int64_t *out);

// Largest id made in millisecond unix_ms or earlier: the largest id
// (INT64_MAX) when unix_ms is past the lifetime; false when unix_ms is before
// the epoch (no id).
bool last_id_through_ms(const Layout &layout, int64_t unix_ms, int64_t *out);

// The id bound equivalent to "ts(id) CMP t" for non-negative ids:
//   AtOrAfter, After:   ts(id) CMP t  <=>  id >= *out
//   AtOrBefore, Before: ts(id) CMP t  <=>  id <= *out
// false: no id satisfies the condition.
bool id_bound(const Layout &layout, TimeCmp cmp, TimePoint t, int64_t *out);

// One end of a time range.
struct RangeEnd {
    bool unbounded;  // no bound on this side (infinite)
    bool inclusive;  // the bound itself is in the range
    TimePoint t;     // the bound, when bounded
};

// The ids made within a time range: exactly those in [*lo, *hi].  false: no
// id was made within it (the range lies before the epoch, past the lifetime,
// or between two milliseconds).  An empty range is the caller's to handle.
bool ids_within(const Layout &layout, const RangeEnd &lower, const RangeEnd &upper, int64_t *lo,
                int64_t *hi);

}  // namespace snowflake
