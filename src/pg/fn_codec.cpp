// Text forms of ids: snowflake_encode/snowflake_decode (base62, Crockford
// base32, hex; fixed width, so encoded ids sort like the ids) and the
// business serial number, snowflake_format/snowflake_parse_serial.
//
// SQLSTATEs: 22023 negative id or unknown format; 22P02 text that is not an
// id (empty, bad character, wrong length, missing prefix); 22003 a value out
// of range (above 2^63-1, or a serial's node/sequence field too large);
// 22008 a serial's date or time (invalid calendar date, before the epoch,
// past the lifetime, or an id whose year has no 4-digit form).
#include "../core/serial.hpp"
#include "../core/text_codec.hpp"

#include "firewall.hpp"
#include "sql_values.hpp"

extern "C" {
#include "mb/pg_wchar.h"
}

namespace {

// Arguments quoted in messages are cut to this many bytes (on a character
// boundary) and marked with "...": the text may be megabytes long.
constexpr int kQuoteMaxBytes = 40;

struct Quote {
    int len;               // bytes of the text to show
    const char *ellipsis;  // "" or "..."
};

Quote quote(const char *s, int len) {
    if (len <= kQuoteMaxBytes)
        return {len, ""};
    return {pg_mbcliplen(s, len, kQuoteMaxBytes), "..."};
}

// Bytes of the (possibly multibyte) character at s, never past len.
int char_len(const char *s, int len) {
    const int n = pg_mbcharcliplen(s, len, 1);
    return n > 0 ? n : (len > 0 ? 1 : 0);
}

snowflake::TextFormat format_arg(FunctionCallInfo fcinfo, int argno) {
    const text *t = PG_GETARG_TEXT_PP(argno);
    const char *s = VARDATA_ANY(t);
    const int len = VARSIZE_ANY_EXHDR(t);
    snowflake::TextFormat f;
    if (!snowflake::parse_text_format(s, static_cast<size_t>(len), &f)) {
        const Quote q = quote(s, len);
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("unknown snowflake text format \"%.*s%s\"", q.len, s, q.ellipsis),
                        errhint("Valid formats are base62, base32 and hex.")));
    }
    return f;
}

const char *alphabet_hint(snowflake::TextFormat f) {
    switch (f) {
    case snowflake::TextFormat::Base62:
        return "base62 digits are 0-9, A-Z and a-z, case-sensitive.";
    case snowflake::TextFormat::Base32:
        return "Crockford base32 digits are 0-9 and A-Z without I, L, O and U, "
               "case-insensitive; I and L read as 1, O as 0, and hyphens are ignored.";
    case snowflake::TextFormat::Hex:
        return "hex digits are 0-9 and a-f, case-insensitive, without a 0x prefix.";
    }
    return "";
}

// A text that did not decode but reads as a decimal id or as hex: say so,
// with the expression that reads it (every such text is under 40 bytes, so
// it is quoted whole).  0 (no hint) otherwise.
int other_form_hint(snowflake::TextFormat f, const char *s, int len) {
    switch (snowflake::other_form(s, static_cast<size_t>(len), f)) {
    case snowflake::OtherForm::Decimal:
        return errhint("\"%.*s\" looks like a decimal id, which needs no decoding: "
                       "'%.*s'::bigint.",
                       len, s, len, s);
    case snowflake::OtherForm::Hex:
        return errhint("\"%.*s\" looks like hex: snowflake_decode('%.*s', 'hex').", len, s, len,
                       s);
    case snowflake::OtherForm::None:
        break;
    }
    return 0;
}

[[noreturn]] void bad_encoded_text(snowflake::DecodeError e, snowflake::TextFormat f,
                                   const char *s, int len, size_t pos) {
    const char *fname = snowflake::text_format_name(f);
    const Quote q = quote(s, len);
    if (e == snowflake::DecodeError::BadCharacter) {
        // Every byte before pos is ASCII, so the byte position is also the
        // character position.
        const char *bad = s + pos - 1;
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid character \"%.*s\" at position %zu of %s snowflake id "
                               "\"%.*s%s\"",
                               char_len(bad, len - static_cast<int>(pos - 1)), bad, pos, fname,
                               q.len, s, q.ellipsis),
                        errhint("%s", alphabet_hint(f))));
    }
    if (e == snowflake::DecodeError::Overflow)
        ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                        errmsg("%s snowflake id \"%.*s%s\" is out of range", fname, q.len, s,
                               q.ellipsis),
                        errdetail("Snowflake ids are at most 9223372036854775807 (2^63-1)."),
                        other_form_hint(f, s, len)));
    ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                    errmsg("invalid %s snowflake id \"%.*s%s\"", fname, q.len, s, q.ellipsis),
                    errdetail("The text contains no digits.")));
    pg_unreachable();
}

text *concat_text(const char *a, size_t alen, const char *b, size_t blen) {
    // palloc refuses (ERROR) a total above 1 GB.
    text *out = static_cast<text *>(palloc(VARHDRSZ + alen + blen));
    SET_VARSIZE(out, VARHDRSZ + alen + blen);
    memcpy(VARDATA(out), a, alen);
    memcpy(VARDATA(out) + alen, b, blen);
    return out;
}

// Which field of a serial starts at the 1-based position pos (after the
// prefix), for PartOutOfRange; fills its name and maximum.
void serial_field_at(const snowflake::Layout &l, size_t pos, const char **name, int64 *max) {
    const size_t off = pos - 1 - snowflake::kSerialTimeDigits;
    const size_t dc = snowflake::decimal_width_for_bits(l.datacenter_bits);
    const size_t w = snowflake::decimal_width_for_bits(l.worker_bits);
    if (off < dc) {
        *name = "datacenter_id";
        *max = l.max_datacenter_id();
    } else if (off < dc + w) {
        *name = "worker_id";
        *max = l.max_worker_id();
    } else {
        *name = "sequence";
        *max = l.max_sequence();
    }
}

[[noreturn]] void bad_serial(snowflake::SerialError e, const snowflake::Layout &l,
                             const char *s, int slen, int prefix_len, size_t pos) {
    using snowflake::SerialError;
    const Quote q = quote(s, slen);
    // Position in the whole serial, in characters: the prefix may be
    // multibyte, the rest up to pos is ASCII digits.
    const size_t at = static_cast<size_t>(pg_mbstrlen_with_len(s, prefix_len)) + pos;
    const size_t rest_len = static_cast<size_t>(slen - prefix_len);
    switch (e) {
    case SerialError::BadCharacter: {
        const char *bad = s + prefix_len + pos - 1;
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                 errmsg("invalid character \"%.*s\" at position %zu of snowflake serial number "
                        "\"%.*s%s\"",
                        char_len(bad, slen - static_cast<int>(bad - s)), bad, at, q.len, s,
                        q.ellipsis),
                 errdetail("After its prefix, a serial number has only digits.")));
        break;
    }
    case SerialError::WrongLength:
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid snowflake serial number \"%.*s%s\"", q.len, s, q.ellipsis),
                        errdetail("After its prefix, a serial number has %zu digits under this "
                                  "server's layout; this one has %zu.",
                                  snowflake::serial_width(l), rest_len)));
        break;
    case SerialError::InvalidDate:
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("invalid date or time at position %zu of snowflake serial number "
                               "\"%.*s%s\"",
                               at, q.len, s, q.ellipsis),
                        errdetail("The first 17 digits after the prefix are the UTC time as "
                                  "YYYYMMDDHH24MISSMS.")));
        break;
    case SerialError::PartOutOfRange: {
        const char *name;
        int64 max;
        serial_field_at(l, pos, &name, &max);
        ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                        errmsg("%s out of range at position %zu of snowflake serial number "
                               "\"%.*s%s\"",
                               name, at, q.len, s, q.ellipsis),
                        errdetail("The largest %s under this server's layout is %lld.", name,
                                  static_cast<long long>(max))));
        break;
    }
    case SerialError::BeforeEpoch:
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("snowflake serial number \"%.*s%s\" is before the snowflake epoch",
                               q.len, s, q.ellipsis),
                        errdetail("The epoch is %s.",
                                  timestamptz_to_str(DatumGetTimestampTz(
                                      sfpg::unix_ms_to_timestamptz(l.epoch_ms))))));
        break;
    case SerialError::PastLifetime:
        ereport(ERROR,
                (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                 errmsg("snowflake serial number \"%.*s%s\" is past the end of the snowflake "
                        "lifetime",
                        q.len, s, q.ellipsis),
                 errdetail("The last millisecond the layout can represent is %s.",
                           timestamptz_to_str(DatumGetTimestampTz(
                               sfpg::unix_ms_to_timestamptz(l.lifetime_end_unix_ms()))))));
        break;
    default:
        break;
    }
    elog(ERROR, "snowflake_parse_serial: %s", snowflake::serial_error_text(e));
    pg_unreachable();
}

}  // namespace

SNOWFLAKE_ENTRY(snowflake_encode) {
    const int64 id = PG_GETARG_INT64(0);
    const snowflake::TextFormat f = format_arg(fcinfo, 1);
    if (id < 0)
        sfpg::invalid_id(id);
    char buf[snowflake::kMaxEncodedWidth + 1];
    size_t n = 0;
    const snowflake::EncodeError e = snowflake::encode_id(id, f, buf, sizeof buf, &n);
    if (e != snowflake::EncodeError::None)
        elog(ERROR, "snowflake_encode: %s", snowflake::encode_error_text(e));
    PG_RETURN_TEXT_P(cstring_to_text_with_len(buf, static_cast<int>(n)));
}

SNOWFLAKE_ENTRY(snowflake_decode) {
    const text *t = PG_GETARG_TEXT_PP(0);
    const snowflake::TextFormat f = format_arg(fcinfo, 1);
    const char *s = VARDATA_ANY(t);
    const int len = VARSIZE_ANY_EXHDR(t);
    int64_t id = 0;
    size_t pos = 0;
    const snowflake::DecodeError e =
        snowflake::decode_id(s, static_cast<size_t>(len), f, &id, &pos);
    if (e != snowflake::DecodeError::None)
        bad_encoded_text(e, f, s, len, pos);
    PG_RETURN_INT64(id);
}

SNOWFLAKE_ENTRY(snowflake_format) {
    const int64 id = PG_GETARG_INT64(0);
    const text *prefix = PG_GETARG_TEXT_PP(1);
    const snowflake::Layout &layout = sfpg::server_layout();
    if (id < 0)
        sfpg::invalid_id(id);
    char buf[snowflake::kMaxSerialWidth + 1];
    size_t n = 0;
    const snowflake::SerialError e = snowflake::format_serial(layout, id, buf, sizeof buf, &n);
    if (e == snowflake::SerialError::YearOutOfRange)
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("snowflake id %lld has no serial number",
                               static_cast<long long>(id)),
                        errdetail("Its time is outside the years 0000 to 9999.")));
    if (e != snowflake::SerialError::None)
        elog(ERROR, "snowflake_format: %s", snowflake::serial_error_text(e));
    PG_RETURN_TEXT_P(concat_text(VARDATA_ANY(prefix), VARSIZE_ANY_EXHDR(prefix), buf, n));
}

SNOWFLAKE_ENTRY(snowflake_parse_serial) {
    const text *serial = PG_GETARG_TEXT_PP(0);
    const text *prefix = PG_GETARG_TEXT_PP(1);
    const char *s = VARDATA_ANY(serial);
    const int slen = VARSIZE_ANY_EXHDR(serial);
    const char *p = VARDATA_ANY(prefix);
    const int plen = VARSIZE_ANY_EXHDR(prefix);
    if (slen < plen || memcmp(s, p, plen) != 0) {
        const Quote qs = quote(s, slen);
        const Quote qp = quote(p, plen);
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("snowflake serial number \"%.*s%s\" does not start with the "
                               "prefix \"%.*s%s\"",
                               qs.len, s, qs.ellipsis, qp.len, p, qp.ellipsis)));
    }
    const snowflake::Layout &layout = sfpg::server_layout();
    int64_t id = 0;
    size_t pos = 0;
    const snowflake::SerialError e = snowflake::parse_serial(
        layout, s + plen, static_cast<size_t>(slen - plen), &id, &pos);
    if (e != snowflake::SerialError::None)
        bad_serial(e, layout, s, slen, plen, pos);
    PG_RETURN_INT64(id);
}
