// Fixed-width text encodings of snowflake ids: base62, Crockford base32, hex.
//
// Every format pads to a fixed width with its zero digit and uses an alphabet
// in ASCII order, so encoded strings compare bytewise (C collation) exactly
// like the ids they encode.  No allocation, no exceptions: callers pass the
// output buffer and get an error code back.
#pragma once

#ifdef POSTGRES_H
#error "src/core must not see PostgreSQL headers"
#endif

#include <cstddef>
#include <cstdint>

namespace snowflake {

enum class TextFormat { Base62, Base32, Hex };

// Longest encoded_width() of any format, for sizing stack buffers (+1 for NUL).
constexpr size_t kMaxEncodedWidth = 16;

enum class EncodeError {
    None,
    NegativeId,      // ids are never negative
    BufferTooSmall,  // buflen < encoded_width(format)
};

enum class DecodeError {
    None,
    Empty,         // no digits (len 0, or only hyphens in base32)
    BadCharacter,  // a byte outside the format's alphabet; see *bad_pos
    Overflow,      // the value exceeds 2^63-1
};

// Short lowercase reasons (static storage, never null).
const char *encode_error_text(EncodeError e);
const char *decode_error_text(DecodeError e);

// Accepts exactly "base62", "base32" or "hex", ASCII case-insensitively
// ("Base62", "HEX" too); no surrounding spaces, no other aliases.
// Returns false (and leaves *out alone) for anything else.
bool parse_text_format(const char *name, size_t len, TextFormat *out);

// Canonical lowercase name of a format ("base62", "base32", "hex").
const char *text_format_name(TextFormat f);

// Fixed number of characters encode_id() writes: base62 11 (62^11 > 2^63),
// base32 13 (32^13 = 2^65), hex 16.
size_t encoded_width(TextFormat f);

// Writes exactly encoded_width(f) characters to buf, left-padded with '0'.
//   base62: alphabet 0-9A-Za-z (ASCII order)
//   base32: Crockford, 0123456789ABCDEFGHJKMNPQRSTVWXYZ, uppercase
//   hex:    0-9a-f, lowercase
// A NUL is appended when buflen leaves room for it; it is not counted in
// *outlen.  On error nothing useful is in buf and *outlen is untouched.
EncodeError encode_id(int64_t id, TextFormat f, char *buf, size_t buflen, size_t *outlen);

// Parses len bytes of text (no NUL needed).  Any length is accepted as long
// as the value fits in 63 bits, so leading zeros are fine.
//   base62: case-sensitive ('a' and 'A' are different digits).
//   base32: case-insensitive; O/o read as 0, I/i/L/l read as 1, and hyphens
//           are ignored anywhere (Crockford's readability separators).  U is
//           not a digit.
//   hex:    case-insensitive; strict, so no "0x" prefix and no spaces.
// On BadCharacter, *bad_pos (if non-null) is the 1-based byte position of the
// first offending byte.  Every byte before it is ASCII, so this is also its
// character position in any ASCII-compatible encoding (e.g. UTF-8).  For the
// other outcomes *bad_pos is set to 0.  A bad character anywhere takes
// precedence over Overflow.
DecodeError decode_id(const char *text, size_t len, TextFormat f, int64_t *out,
                      size_t *bad_pos);

// What a text that did not decode in format `tried` more likely is, for a
// hint that says how to read it: a decimal id ("910499571847892992", all
// digits, at most 2^63-1), or hex (hex digits that decode as hex; never
// suggested when hex was the format tried).  Decimal wins where both fit.
// Only text longer than the format's own width is taken for another form.
enum class OtherForm { None, Decimal, Hex };
OtherForm other_form(const char *text, size_t len, TextFormat tried);

}  // namespace snowflake
