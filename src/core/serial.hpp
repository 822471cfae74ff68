// Business serial numbers: "prefix + time + node + sequence" in decimal.
//
//   YYYYMMDDHH24MISSMS  datacenter_id  worker_id  sequence
//   17 digits, UTC      each zero-padded to the decimal width of its maximum
//
// e.g. under the default layout (5/5/12 bits) id 910499571847892992 becomes
// "2017092013430884917250000": 2017-09-20 13:43:08.849, dc 17, worker 25,
// sequence 0000.  Every field has a fixed width and the fields run from most
// to least significant, so serials of one layout sort bytewise like the ids.
// A field of 0 bits (value always 0) takes 0 digits.
//
// The prefix is the caller's business: format_serial() writes only the part
// after it, and parse_serial() expects the caller to have checked and
// stripped it.  No allocation, no exceptions, no PostgreSQL.
#pragma once

#ifdef POSTGRES_H
#error "src/core must not see PostgreSQL headers"
#endif

#include <cstddef>
#include <cstdint>

#include "layout.hpp"

namespace snowflake {

constexpr size_t kSerialTimeDigits = 17;  // YYYYMMDDHHMISS + 3 ms digits
// Upper bound on serial_width() of any valid layout, for stack buffers: the
// three fields share at most 28 bits, i.e. at most 9 digits each.
constexpr size_t kMaxSerialWidth = kSerialTimeDigits + 3 * 9;

enum class SerialError {
    None,
    InvalidLayout,   // the layout's widths fail validate_widths()
    NegativeId,      // ids are never negative
    BufferTooSmall,  // buflen < serial_width(layout)
    YearOutOfRange,  // the id's time falls outside years 0000..9999
    WrongLength,     // text length != serial_width(layout)
    BadCharacter,    // a non-digit byte; see *bad_pos
    InvalidDate,     // month, day, hour, minute or second out of range; see *bad_pos
    PartOutOfRange,  // datacenter, worker or sequence too large; see *bad_pos
    BeforeEpoch,     // the time is before the layout's epoch
    PastLifetime,    // the time is past the last ms the layout can represent
};

// Short lowercase reason (static storage, never null).
const char *serial_error_text(SerialError e);

// Decimal digits of the largest value a field of `bits` bits holds; 0 for 0 bits.
size_t decimal_width_for_bits(int bits);

// Characters format_serial() writes (prefix excluded).  0 for an invalid layout.
size_t serial_width(const Layout &layout);

// Writes exactly serial_width(layout) characters, plus a NUL if buflen leaves
// room (not counted in *outlen).
SerialError format_serial(const Layout &layout, int64_t id, char *buf, size_t buflen,
                          size_t *outlen);

// Parses the serial text without its prefix back into the id.  Checks, in
// order: the layout, every byte is an ASCII digit, the length, the calendar
// (leap years included; no leap seconds), the node and sequence fields, then
// epoch and lifetime.  *bad_pos (if non-null) is the 1-based position within
// `text` of the offending byte (BadCharacter) or of the first digit of the
// offending field (InvalidDate, PartOutOfRange); 0 for other outcomes.  The
// caller adds the prefix length if it reports positions in the full string.
SerialError parse_serial(const Layout &layout, const char *text, size_t len, int64_t *out,
                         size_t *bad_pos);

// Proleptic Gregorian calendar arithmetic (Howard Hinnant's algorithms),

}  // namespace snowflake
