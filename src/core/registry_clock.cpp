// The registry's clock beside a node's (registry_clock.hpp).
#include "registry_clock.hpp"

namespace snowflake {

namespace {

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

}  // namespace

ClockSkew measure_skew(const RegistryReading &r) {
    // The node's clock reads whole milliseconds: the query left in
    // [sent, sent + 1) and came back in [received, received + 1), and the
    // registry's now() lies between.  The middle of that span, in us.
    const int64_t lo_us = r.sent_unix_ms * 1000;
    const int64_t hi_us = (r.received_unix_ms + 1) * 1000;
    const int64_t span_us = abs64(hi_us - lo_us);
    const int64_t mid_us = lo_us + (hi_us - lo_us) / 2;
    ClockSkew s;
    s.offset_ms = floor_div(mid_us - r.registry_unix_us + 500, 1000);
    // Half the span, plus the rounding of the offset.
    s.error_ms = ceil_div(span_us, 2000) + 1;
    return s;
}

bool skew_beyond(const ClockSkew &s, int64_t limit_ms) {
    return abs64(s.offset_ms) - s.error_ms > limit_ms;
}

int64_t confirmation_end(const RegistryReading &r, int64_t lease_ms) {
    const int64_t by_node = r.asked_unix_ms + lease_ms;
    const int64_t by_registry = floor_div(r.registry_unix_us, 1000) + lease_ms;
    return by_node < by_registry ? by_node : by_registry;
}

int64_t grant_floor(const RegistryReading &r) { return ceil_div(r.registry_unix_us, 1000); }

}  // namespace snowflake
