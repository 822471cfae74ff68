// Ids made within a time, for time conditions: the "made within" operator
// (id <@ tstzrange) and the id bounds the planner derives from time
// predicates, which users may call too.
//
//   snowflake_min_id_since(ts)   smallest id made at ts or later
//   snowflake_min_id_after(ts)   smallest id made after ts
//   snowflake_max_id_until(ts)   largest id made at ts or earlier
//   snowflake_max_id_before(ts)  largest id made before ts
//   (each also for a date or a timestamp without time zone, taken as
//   PostgreSQL compares them with a timestamptz, and with the layout as
//   arguments)
//   snowflake_min_id_within(r) / snowflake_max_id_within(r)
//   snowflake_made_within(id, r) the operator's function
//
// Unlike snowflake_min_id / snowflake_max_id (the ids of the millisecond of
// ts, an ERROR outside the layout's lifetime), these never fail on a time:
// a bound that excludes nothing is the first or the last id (0, or
// 9223372036854775807), a bound that no id meets is NULL.  So
// "snowflake_timestamp(id) >= x" and "id >= snowflake_min_id_since(x)" hold
// for exactly the same non-negative ids, for every x, infinities included.
#include "../core/layout.hpp"
#include "../core/time_bounds.hpp"

#include "firewall.hpp"
#include "layout_args.hpp"
#include "sql_values.hpp"
#include "time_ids.hpp"

namespace {

using snowflake::TimeCmp;

Datum bound_or_null(FunctionCallInfo fcinfo, const snowflake::Layout &layout, TimeCmp cmp,
                    TimestampTz ts) {
    int64 id;
    if (!sfpg::time_id_bound(layout, cmp, ts, &id))
        PG_RETURN_NULL();
    PG_RETURN_INT64(id);
}

Datum bound_or_null(FunctionCallInfo fcinfo, const snowflake::Layout &layout, TimeCmp cmp) {
    return bound_or_null(fcinfo, layout, cmp, PG_GETARG_TIMESTAMPTZ(0));
}

Datum server_bound(FunctionCallInfo fcinfo, TimeCmp cmp) {
    return bound_or_null(fcinfo, sfpg::server_layout(), cmp);
}

// The date and timestamp forms: the time PostgreSQL compares them as (in the
// session's time zone, so these are STABLE and never folded when planning).
Datum date_bound(FunctionCallInfo fcinfo, TimeCmp cmp) {
    return bound_or_null(fcinfo, sfpg::server_layout(), cmp,
                         sfpg::date_as_timestamptz(PG_GETARG_DATEADT(0)));
}

Datum timestamp_bound(FunctionCallInfo fcinfo, TimeCmp cmp) {
    return bound_or_null(fcinfo, sfpg::server_layout(), cmp,
                         sfpg::timestamp_as_timestamptz(PG_GETARG_TIMESTAMP(0)));
}

Datum layout_bound(FunctionCallInfo fcinfo, TimeCmp cmp) {
    const snowflake::Layout layout = sfpg::layout_from_args(fcinfo, 1);
    return bound_or_null(fcinfo, layout, cmp);
}

}  // namespace

SNOWFLAKE_ENTRY(snowflake_min_id_since) { return server_bound(fcinfo, TimeCmp::AtOrAfter); }
SNOWFLAKE_ENTRY(snowflake_min_id_after) { return server_bound(fcinfo, TimeCmp::After); }
SNOWFLAKE_ENTRY(snowflake_max_id_until) { return server_bound(fcinfo, TimeCmp::AtOrBefore); }
SNOWFLAKE_ENTRY(snowflake_max_id_before) { return server_bound(fcinfo, TimeCmp::Before); }

SNOWFLAKE_ENTRY(snowflake_min_id_since_date) { return date_bound(fcinfo, TimeCmp::AtOrAfter); }
SNOWFLAKE_ENTRY(snowflake_min_id_after_date) { return date_bound(fcinfo, TimeCmp::After); }
SNOWFLAKE_ENTRY(snowflake_max_id_until_date) { return date_bound(fcinfo, TimeCmp::AtOrBefore); }
SNOWFLAKE_ENTRY(snowflake_max_id_before_date) { return date_bound(fcinfo, TimeCmp::Before); }

SNOWFLAKE_ENTRY(snowflake_min_id_since_timestamp) {
    return timestamp_bound(fcinfo, TimeCmp::AtOrAfter);
}
SNOWFLAKE_ENTRY(snowflake_min_id_after_timestamp) {
    return timestamp_bound(fcinfo, TimeCmp::After);
}
SNOWFLAKE_ENTRY(snowflake_max_id_until_timestamp) {
    return timestamp_bound(fcinfo, TimeCmp::AtOrBefore);
}
SNOWFLAKE_ENTRY(snowflake_max_id_before_timestamp) {
    return timestamp_bound(fcinfo, TimeCmp::Before);
}

SNOWFLAKE_ENTRY(snowflake_min_id_since_with_layout) {
    return layout_bound(fcinfo, TimeCmp::AtOrAfter);
}
SNOWFLAKE_ENTRY(snowflake_min_id_after_with_layout) {
    return layout_bound(fcinfo, TimeCmp::After);
}
SNOWFLAKE_ENTRY(snowflake_max_id_until_with_layout) {
    return layout_bound(fcinfo, TimeCmp::AtOrBefore);
}
SNOWFLAKE_ENTRY(snowflake_max_id_before_with_layout) {
    return layout_bound(fcinfo, TimeCmp::Before);
}

SNOWFLAKE_ENTRY(snowflake_min_id_within) {
    int64 lo, hi;
    bool upper_inclusive;
    if (!sfpg::range_ids(sfpg::server_layout(), PG_GETARG_DATUM(0), &lo, &hi, &upper_inclusive))
        PG_RETURN_NULL();
    PG_RETURN_INT64(lo);
}

SNOWFLAKE_ENTRY(snowflake_max_id_within) {
    int64 lo, hi;
    bool upper_inclusive;
    if (!sfpg::range_ids(sfpg::server_layout(), PG_GETARG_DATUM(0), &lo, &hi, &upper_inclusive))
        PG_RETURN_NULL();
    PG_RETURN_INT64(hi);
}

// id <@ r.  A negative id was not made at any time: false (not an ERROR as
// in snowflake_timestamp), so that the operator gives the same answer
// whether an index answers it from id bounds or it is evaluated on the row.
SNOWFLAKE_ENTRY(snowflake_made_within) {
    const int64 id = PG_GETARG_INT64(0);
    int64 lo, hi;
    bool upper_inclusive;
    if (id < 0 ||
        !sfpg::range_ids(sfpg::server_layout(), PG_GETARG_DATUM(1), &lo, &hi, &upper_inclusive))
        PG_RETURN_BOOL(false);
    PG_RETURN_BOOL(id >= lo && id <= hi);
}
