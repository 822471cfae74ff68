// Times and time ranges as id bounds, for PostgreSQL values: the shared part
// of the time functions (fn_time_within.cpp), the planner support function
// (time_support.cpp) and the planner hooks (time_conditions.cpp).
#pragma once

#include "../core/layout.hpp"
#include "../core/time_bounds.hpp"

#include "pg_planner_includes.hpp"

namespace sfpg {

// The id bound of "ts(id) CMP ts" (see snowflake::id_bound), for any
// timestamptz including -infinity and infinity.  false: no id satisfies it.
bool time_id_bound(const snowflake::Layout &layout, snowflake::TimeCmp cmp, TimestampTz ts,
                   int64 *out);

// A date or a timestamp without time zone as PostgreSQL compares it with a
// timestamptz: in the session's time zone, and beyond the range of
// timestamptz as -infinity or infinity (the comparison operators treat such
// values as before or after every finite time, without an error, which is
// what the infinities are to an id's time).
TimestampTz date_as_timestamptz(DateADT d);
TimestampTz timestamp_as_timestamptz(Timestamp ts);

// The ids made within a tstzrange value: [*lo, *hi].  false: none (an empty
// range, or no millisecond of the layout within it).  *upper_inclusive tells
// whether the range's upper end includes its bound (for the form of the
// condition the planner writes); it is set whenever true is returned.
bool range_ids(const snowflake::Layout &layout, Datum range, int64 *lo, int64 *hi,
               bool *upper_inclusive);

// Whether function fn is a C function of ours whose link symbol is `symbol`
// (how the planner code recognises our functions: a name or a schema can
// change, the symbol is what runs).
bool is_c_function(Oid fn, const char *symbol);

// The link symbol of C function fn into buf (truncated to len - 1 bytes);
// false if fn is not a C function.
constexpr size_t kSymbolLen = 64;
bool c_function_symbol(Oid fn, char *buf, size_t len);

// The server's layout, or null when it could not be determined (the caller
// then leaves the expression alone, and evaluating it reports the error).
const snowflake::Layout *server_layout_or_null();

}  // namespace sfpg
