#include "serial.hpp"

#include "calendar.hpp"

namespace snowflake {

namespace {

constexpr int64_t kMsPerDay = 86400000;

// Unix ms of 0000-01-01 00:00:00.000 and of 9999-12-31 23:59:59.999: the
// range a 4-digit year can show.  Literals (checked by the unit tests against
// days_from_civil) so there is no dynamic initialisation.
constexpr int64_t kMinSerialMs = -62167219200000;  // days_from_civil(0, 1, 1) * kMsPerDay
constexpr int64_t kMaxSerialMs = 253402300799999;  // days_from_civil(10000, 1, 1) * kMsPerDay - 1

bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int64_t year, int month) {
    static const int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return month == 2 && is_leap(year) ? 29 : kDays[month - 1];
}

// Floor division: C++ truncates toward zero, which is wrong before 1970.
int64_t floor_div(int64_t a, int64_t b) {
    const int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// Writes value zero-padded into exactly `width` digits; caller checks it fits.
char *put_decimal(char *p, uint64_t value, size_t width) {
    for (size_t i = width; i-- > 0;) {
        p[i] = static_cast<char>('0' + value % 10);
        value /= 10;
    }
    return p + width;
}

// Reads `width` digits (already known to be ASCII digits).
int64_t get_decimal(const char *p, size_t width) {
    int64_t v = 0;
    for (size_t i = 0; i < width; ++i)
        v = v * 10 + (p[i] - '0');
    return v;
}

bool layout_ok(const Layout &l) {
    return validate_widths(l.datacenter_bits, l.worker_bits, l.sequence_bits) ==
           LayoutError::None;
}

// Splits unix ms into the seven time fields, in serial order.
void time_fields(int64_t unix_ms, int64_t f[7]) {
    const int64_t days = floor_div(unix_ms, kMsPerDay);
    const int64_t ms_of_day = unix_ms - days * kMsPerDay;
    int month = 0, day = 0;
    civil_from_days(days, &f[0], &month, &day);
    f[1] = month;
    f[2] = day;
    f[3] = ms_of_day / 3600000;
    f[4] = ms_of_day / 60000 % 60;
    f[5] = ms_of_day / 1000 % 60;
    f[6] = ms_of_day % 1000;
}

constexpr size_t kTimeWidths[7] = {4, 2, 2, 2, 2, 2, 3};

// Checks the calendar fields; returns the index of the first bad one, or -1.
int bad_time_field(const int64_t f[7]) {
    if (f[1] < 1 || f[1] > 12)
        return 1;
    if (f[2] < 1 || f[2] > days_in_month(f[0], static_cast<int>(f[1])))
        return 2;
    if (f[3] > 23)
        return 3;
    if (f[4] > 59)
        return 4;
    if (f[5] > 59)
        return 5;
    return -1;  // year 0000..9999 and ms 000..999 are always valid
}

}  // namespace

const char *serial_error_text(SerialError e) {
    switch (e) {
    case SerialError::None:
        return "ok";
    case SerialError::InvalidLayout:
        return "invalid layout";
    case SerialError::NegativeId:
        return "snowflake ids are non-negative";
    case SerialError::BufferTooSmall:
        return "output buffer too small";
    case SerialError::YearOutOfRange:
        return "the id's time is outside years 0000 to 9999";
    case SerialError::WrongLength:
        return "wrong length for a serial under this layout";
    case SerialError::BadCharacter:
        return "invalid character, expected a digit";
    case SerialError::InvalidDate:
        return "invalid date or time";
    case SerialError::PartOutOfRange:
        return "datacenter, worker or sequence out of range for the layout";
    case SerialError::BeforeEpoch:
        return "time is before the epoch";
    case SerialError::PastLifetime:
        return "time is past the end of the layout's lifetime";
    }
    return "unknown serial error";
}

size_t decimal_width_for_bits(int bits) {
    if (bits <= 0)
        return 0;
    uint64_t max = (uint64_t{1} << bits) - 1;
    size_t w = 0;
    for (; max > 0; max /= 10)
        ++w;
    return w;
}

size_t serial_width(const Layout &l) {
    if (!layout_ok(l))
        return 0;
    return kSerialTimeDigits + decimal_width_for_bits(l.datacenter_bits) +
           decimal_width_for_bits(l.worker_bits) + decimal_width_for_bits(l.sequence_bits);
}

SerialError format_serial(const Layout &l, int64_t id, char *buf, size_t buflen,
                          size_t *outlen) {
    if (!layout_ok(l))
        return SerialError::InvalidLayout;
    if (id < 0)
        return SerialError::NegativeId;
    const size_t width = serial_width(l);
    if (buflen < width)
        return SerialError::BufferTooSmall;
    // Not decompose(): it adds epoch_ms + timestamp unchecked, which overflows
    // for an absurd epoch.  Here the sum is guarded (timestamp is >= 0).
    const int64_t timestamp = id >> l.timestamp_shift();
    if (l.epoch_ms > INT64_MAX - timestamp)
        return SerialError::YearOutOfRange;
    const int64_t unix_ms = l.epoch_ms + timestamp;
    if (unix_ms < kMinSerialMs || unix_ms > kMaxSerialMs)
        return SerialError::YearOutOfRange;
    int64_t f[7];
    time_fields(unix_ms, f);
    char *p = buf;
    for (int i = 0; i < 7; ++i)
        p = put_decimal(p, static_cast<uint64_t>(f[i]), kTimeWidths[i]);
    const uint64_t u = static_cast<uint64_t>(id);
    p = put_decimal(p, (u >> l.datacenter_shift()) & static_cast<uint64_t>(l.max_datacenter_id()),
                    decimal_width_for_bits(l.datacenter_bits));
    p = put_decimal(p, (u >> l.worker_shift()) & static_cast<uint64_t>(l.max_worker_id()),
                    decimal_width_for_bits(l.worker_bits));
    put_decimal(p, u & static_cast<uint64_t>(l.max_sequence()),
                decimal_width_for_bits(l.sequence_bits));
    if (buflen > width)
        buf[width] = '\0';
    *outlen = width;
    return SerialError::None;
}

SerialError parse_serial(const Layout &l, const char *text, size_t len, int64_t *out,
                         size_t *bad_pos) {
    size_t dummy;
    size_t *pos = bad_pos ? bad_pos : &dummy;
    *pos = 0;
    if (!layout_ok(l))
        return SerialError::InvalidLayout;
    // Characters before length: "2017-09-20..." is better told as a bad '-'.
    for (size_t i = 0; i < len; ++i) {
        if (text[i] < '0' || text[i] > '9') {
            *pos = i + 1;
            return SerialError::BadCharacter;
        }
    }
    if (len != serial_width(l))
        return SerialError::WrongLength;

    int64_t f[7];
    size_t at = 0;
    size_t field_pos[7];
    for (int i = 0; i < 7; ++i) {
        field_pos[i] = at;
        f[i] = get_decimal(text + at, kTimeWidths[i]);
        at += kTimeWidths[i];
    }
    const int bad = bad_time_field(f);
    if (bad >= 0) {
        *pos = field_pos[bad] + 1;
        return SerialError::InvalidDate;
    }

    // Node and sequence fields, each checked against its maximum.
    const int bits[3] = {l.datacenter_bits, l.worker_bits, l.sequence_bits};
    int64_t part[3];
    for (int i = 0; i < 3; ++i) {
        const size_t w = decimal_width_for_bits(bits[i]);
        part[i] = get_decimal(text + at, w);
        if (part[i] > (int64_t{1} << bits[i]) - 1) {
            *pos = at + 1;
            return SerialError::PartOutOfRange;
        }
        at += w;
    }

    const int64_t days = days_from_civil(f[0], static_cast<int>(f[1]), static_cast<int>(f[2]));
    const int64_t unix_ms = days * kMsPerDay + f[3] * 3600000 + f[4] * 60000 + f[5] * 1000 + f[6];
    if (unix_ms < l.epoch_ms)
        return SerialError::BeforeEpoch;
    // unix_ms >= epoch_ms, so the difference is in [0, 2^64) and exact in
    // unsigned arithmetic even when the signed subtraction would overflow.
    const uint64_t ts = static_cast<uint64_t>(unix_ms) - static_cast<uint64_t>(l.epoch_ms);
    if (ts > static_cast<uint64_t>(l.max_timestamp()))
        return SerialError::PastLifetime;
    *out = l.compose(static_cast<int64_t>(ts), l.node_bits(part[0], part[1]), part[2]);
    return SerialError::None;
}

}  // namespace snowflake
