// Small helpers shared by the SQL functions: conversions and common errors.
#pragma once

#include "../core/layout.hpp"

#include "pg_includes.hpp"

namespace sfpg {

// The server's layout, or ERROR naming the bad setting if it has none.
const snowflake::Layout &server_layout();

// ERROR: invalid snowflake id (negative).
[[noreturn]] void invalid_id(int64 id);

Datum unix_ms_to_timestamptz(int64 unix_ms);

// The record snowflake_parse returns: (ts, unix_ms, datacenter_id, worker_id, sequence).
Datum id_parts_record(FunctionCallInfo fcinfo, const snowflake::IdParts &p);

}  // namespace sfpg
