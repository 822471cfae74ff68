// Our time functions in the current database, by OID, for the planner code
// (time_bounds_of.cpp): a per-backend cache, found by signature in the
// extension's schema and checked by each function's C symbol, dropped
// whenever pg_proc changes (CREATE, ALTER, DROP EXTENSION among others)
// through a syscache invalidation callback.  Empty in a database without
// the extension, or with a version before 1.4: the planner code then does
// nothing at all.
#pragma once


#include "pg_planner_includes.hpp"

namespace sfpg {

constexpr int kTimeCmps = 4;  // snowflake::TimeCmp values, as array indexes

struct TimeCatalog {
    bool ready;                       // the extension, 1.4 or later, is in this database
    Oid ts;                           // snowflake_timestamp(bigint)
    Oid ts_layout;                    // snowflake_timestamp(bigint, bigint, int, int, int)
    Oid bound[kTimeCmps];             // snowflake_min_id_since(timestamptz), ... by TimeCmp
    Oid bound_layout[kTimeCmps];      // the same with the layout arguments
    Oid bound_date[kTimeCmps];        // ... (date)
    Oid bound_timestamp[kTimeCmps];   // ... (timestamp without time zone)
    Oid made_within;                  // snowflake_made_within(bigint, tstzrange), of <@
    Oid min_within, max_within;       // snowflake_min_id_within / _max_id_within(tstzrange)
    Oid int8_ge, int8_le;             // the plain int8 comparisons
};

// The catalog of this database, filled on first use after an invalidation.
// Reads the catalogs: call it only where that is allowed (in a transaction).
const TimeCatalog &time_catalog();

}  // namespace sfpg
