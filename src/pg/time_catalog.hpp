// Which of the extension's functions a function OID is, for the planner code
// (time_conditions.cpp, time_support.cpp).
//
// Found from the function OIDs already in the query, never by looking the
// extension up: a built-in function (OID below FirstNormalObjectId) is
// never ours and costs no lookup; any other is read from the syscache of
// pg_proc by OID, the entry the planner itself has just read to plan the
// call.  A function is ours when it is a C function of this library
// (probin "$libdir/snowflake") with one of our link symbols (prosrc): a
// name or a schema can change, the symbol is what runs.  No pg_extension,
// no pg_depend, no catalog scan beyond the syscache, no per-backend state;
// so a statement that names no function of ours reads nothing at all, in
// any database.
#pragma once

#include "pg_planner_includes.hpp"

namespace sfpg {

enum class TimeFn {
    Other,
    Timestamp,        // snowflake_timestamp(bigint)
    TimestampLayout,  // snowflake_timestamp(bigint, bigint, int, int, int)
    MadeWithin,       // snowflake_made_within(bigint, tstzrange), of <@
    MinSince,         // snowflake_min_id_since(timestamptz), and the three others
    MinAfter,
    MaxUntil,
    MaxBefore,
    MinWithin,        // snowflake_min_id_within(tstzrange)
    MaxWithin,
};

TimeFn time_function(Oid fn);

// The plain int8 comparison operator of a btree strategy (>=, <=, <).
Oid int8_operator(StrategyNumber strategy);

}  // namespace sfpg
