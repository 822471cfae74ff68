// Durable I/O of the state file (snowflake.state in the data directory).
#pragma once

#include "../core/state_record.hpp"

namespace sfpg {

constexpr const char *kStateFile = "snowflake.state";
constexpr const char *kStateTempFile = "snowflake.state.tmp";

// Reads the state file.  Returns false if there is none; ereports ERROR if it
// exists but cannot be read or is corrupt (never silently ignored).
bool read_state_file(snowflake::StateRecord *out);

// Replaces the state file durably: write a temp file (mode 0600), fsync it,
// rename it over the old one, fsync the directory.  ereports ERROR on failure.
void write_state_file(const snowflake::StateRecord &rec);

// The same, for where an ERROR cannot be raised: logs a failure and returns
// false, leaving the old file in place.
bool write_state_file_or_log(const snowflake::StateRecord &rec);

}  // namespace sfpg
