// The body of the durable mark's WAL record (src/pg/wal_mark.cpp): what a
// standby, a point-in-time restore or crash recovery learns from it, and the
// checks before believing it.
//
// Version 2 (32 bytes): a format tag, the three widths, the mark and the
// epoch, so that redo can refuse a server whose epoch or layout would make
// its ids collide with the ids the mark covers (as a start against the state
// file does).  Version 1 (16 bytes, written before the tag existed): the
// mark and the epoch only; its widths cannot be checked.  Fields are in the
// server's byte order, like all of the WAL.
#pragma once

#ifdef POSTGRES_H
#error "src/core must not see PostgreSQL headers"
#endif

#include <cstddef>
#include <cstdint>

#include "layout.hpp"
#include "state_record.hpp"

namespace snowflake {

constexpr size_t kMarkRecordV1Len = 16;
constexpr size_t kMarkRecordLen = 32;
constexpr uint32_t kMarkRecordTag = 0x534e4602;  // "SNF" and version 2

// Writes a version-2 record into buf (kMarkRecordLen bytes).
void encode_mark_record(int64_t mark_unix_ms, const Layout &layout, unsigned char *buf);

enum class MarkRecordError {
    None,
    BadLength,   // neither version's length
    BadTag,      // 32 bytes, but not a version-2 record
    BadLayout,   // widths no server accepts
};
const char *mark_record_error_text(MarkRecordError e);

// Reads a record of `len` bytes: the mark and the layout it was issued under
// (out->layout's widths are the defaults for version 1, and *has_widths
// false).  Reads nothing past len.
MarkRecordError decode_mark_record(const unsigned char *data, size_t len, StateRecord *out,
                                   bool *has_widths);

}  // namespace snowflake
