// Small helpers shared by the SQL functions: conversions and common errors.
#pragma once

#include "../core/layout.hpp"

#include "pg_includes.hpp"

namespace sfpg {

// The server's layout, or ERROR naming the bad setting if it has none.
const snowflake::Layout &server_layout();

// ERROR: invalid snowflake id (negative).
[[noreturn]] void invalid_id(int64 id);

// ERROR (22008) for a time past timestamptz's range (years 4713 BC to
// 294276 AD): an id of a layout whose lifetime runs past that range has no
// timestamptz.
Datum unix_ms_to_timestamptz(int64 unix_ms);

// The same, but -infinity or infinity past that range: for a time that is a
// limit (the end of a layout's lifetime), not the time of an id.
Datum unix_ms_to_timestamptz_or_infinity(int64 unix_ms);

// The record snowflake_parse returns: (ts, unix_ms, datacenter_id, worker_id, sequence).
Datum id_parts_record(FunctionCallInfo fcinfo, const snowflake::IdParts &p);

}  // namespace sfpg
