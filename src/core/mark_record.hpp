// The body of the durable mark's WAL record (src/pg/wal_mark.cpp): what a
// standby, a point-in-time restore or crash recovery learns from it, and the
// checks before believing it.
//
// Version 3 (88 bytes, 1.5 and later): version 2, then the node identity the
// mark was reserved under and its history (core/identity_history.hpp), so
// that a promoted standby knows since when its lineage issued ids under the
// identity it goes on with.  Version 2 (32 bytes): a format tag, the three
// widths, the mark and the epoch, so that redo can refuse a server whose
// epoch or layout would make its ids collide with the ids the mark covers
// (as a start against the state file does).  Version 1 (16 bytes, written
// before the tag existed): the mark and the epoch only; its widths cannot
// be checked.  Fields are in the server's byte order, like all of the WAL.
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
constexpr size_t kMarkRecordV2Len = 32;
constexpr size_t kMarkRecordLen = 88;            // version 3, the one written
constexpr uint32_t kMarkRecordTagV2 = 0x534e4602;  // "SNF" and version 2
constexpr uint32_t kMarkRecordTag = 0x534e4603;    // "SNF" and version 3

// Writes a version-3 record of rec's mark, layout, identity and history into
// buf (kMarkRecordLen bytes).  The registry node key is not recorded.
void encode_mark_record(const StateRecord &rec, unsigned char *buf);

// Writes a version-2 record (what 1.3 and 1.4 wrote) into buf
// (kMarkRecordV2Len bytes): for tests of reading old WAL.
void encode_mark_record_v2(int64_t mark_unix_ms, const Layout &layout, unsigned char *buf);

enum class MarkRecordError {
    None,
    BadLength,   // no version's length
    BadTag,      // 32 or 88 bytes, but not that version's tag
    BadLayout,   // widths no server accepts
    BadIdentity, // version 3: node ids outside int, or a flag not 0 or 1
};
const char *mark_record_error_text(MarkRecordError e);

// Reads a record of `len` bytes into *out: the mark and the layout it was
// issued under, and for version 3 the identity and its history.  *version
// is 1, 2 or 3.  Version 1 leaves the default widths in out->layout; versions
// 1 and 2 leave no identity (worker_id -1) and history_before_records().
// Reads nothing past len.
MarkRecordError decode_mark_record(const unsigned char *data, size_t len, StateRecord *out,
                                   int *version);

}  // namespace snowflake
