#include "time_bounds.hpp"

namespace snowflake {

namespace {

constexpr int64_t kLargestId = INT64_MAX;  // every layout: all 63 bits set

// The timestamp field of millisecond unix_ms, clamped to the layout's field
// range; *before / *after say which way it was clamped.  Unix ms of any time
// (PostgreSQL's range is years 4713 BC to 294276 AD, about +-9.3e15) minus an
// epoch between 0 and year 9999 stays far inside int64.
int64_t clamped_field(const Layout &layout, int64_t unix_ms, bool *before, bool *after) {
    const int64_t field = unix_ms - layout.epoch_ms;
    *before = field < 0;
    *after = field > layout.max_timestamp();
    if (*before)
        return 0;
    if (*after)
        return layout.max_timestamp();
    return field;
}

}  // namespace

bool first_id_from_ms(const Layout &layout, int64_t unix_ms, int64_t *out) {
    bool before, after;
    const int64_t field = clamped_field(layout, unix_ms, &before, &after);
    if (after)
        return false;
    *out = field << layout.timestamp_shift();
    return true;
}

bool last_id_through_ms(const Layout &layout, int64_t unix_ms, int64_t *out) {
    bool before, after;
    const int64_t field = clamped_field(layout, unix_ms, &before, &after);
    if (before)
        return false;
    if (after) {
        *out = kLargestId;
        return true;
    }
    const int64_t below = (int64_t{1} << layout.timestamp_shift()) - 1;
    *out = (field << layout.timestamp_shift()) | below;
    return true;
}

bool id_bound(const Layout &layout, TimeCmp cmp, TimePoint t, int64_t *out) {
    // ts(id) is a whole millisecond m, so for t in millisecond f (f <= t < f + 1):
    //   m >= t  <=>  m >= f + (t inside f ? 1 : 0)
    //   m >  t  <=>  m >= f + 1
    //   m <= t  <=>  m <= f
    //   m <  t  <=>  m <= f - (t inside f ? 0 : 1)
    switch (cmp) {
    case TimeCmp::AtOrAfter:
        return first_id_from_ms(layout, t.floor_ms + (t.sub_ms ? 1 : 0), out);
    case TimeCmp::After:
        return first_id_from_ms(layout, t.floor_ms + 1, out);
    case TimeCmp::AtOrBefore:
        return last_id_through_ms(layout, t.floor_ms, out);
    case TimeCmp::Before:
        return last_id_through_ms(layout, t.floor_ms - (t.sub_ms ? 0 : 1), out);
    }
    return false;
}

bool ids_within(const Layout &layout, const RangeEnd &lower, const RangeEnd &upper, int64_t *lo,
                int64_t *hi) {
    int64_t l = 0, h = kLargestId;
    if (!lower.unbounded &&
        !id_bound(layout, lower.inclusive ? TimeCmp::AtOrAfter : TimeCmp::After, lower.t, &l))
        return false;
    if (!upper.unbounded &&
        !id_bound(layout, upper.inclusive ? TimeCmp::AtOrBefore : TimeCmp::Before, upper.t, &h))
        return false;
    if (l > h)
        return false;
    *lo = l;
    *hi = h;
    return true;
}

}  // namespace snowflake
