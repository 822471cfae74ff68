// Parsing of the snowflake.epoch setting and of plain decimal integers.
//
// The epoch is either an integer (Unix ms) or an ISO 8601 timestamp.  We parse
// timestamps ourselves instead of calling timestamptz_in: the result must not
// depend on the server's TimeZone, and a parse failure must be reported with
// the setting's name while the postmaster is still starting.
#pragma once

#ifdef POSTGRES_H
#error "src/core must not see PostgreSQL headers"
#endif

#include <cstddef>
#include <cstdint>

namespace snowflake {

// Strict base-10 int64: optional '-', digits only, no spaces, no overflow.
bool parse_int64(const char *s, size_t len, int64_t *out);

// Accepts "1288834974657" (Unix ms) or "YYYY-MM-DD", "YYYY-MM-DD HH:MM:SS",
// "YYYY-MM-DDTHH:MM:SS[.fff]" with an optional "Z", "UTC", "+HH", "+HH:MM"
// or "-HH:MM" suffix (no suffix means UTC).  Leading/trailing blanks are
// ignored.  Returns false on anything else; range checks are the caller's.
bool parse_epoch(const char *s, size_t len, int64_t *unix_ms);

}  // namespace snowflake
