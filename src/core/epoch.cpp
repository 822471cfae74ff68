#include "epoch.hpp"

#include "calendar.hpp"

namespace snowflake {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_blank(char c) { return c == ' ' || c == '\t'; }

// Reads exactly n digits at s[*pos]; advances *pos.
bool fixed_digits(const char *s, size_t len, size_t *pos, int n, int64_t *out) {
    int64_t v = 0;
    for (int i = 0; i < n; i++) {
        if (*pos >= len || !is_digit(s[*pos]))
            return false;
        v = v * 10 + (s[(*pos)++] - '0');
    }
    *out = v;
    return true;
}

bool expect(const char *s, size_t len, size_t *pos, char c) {
    if (*pos < len && s[*pos] == c) {
        (*pos)++;
        return true;
    }
    return false;
}

unsigned days_in_month(int64_t y, unsigned m) {
    static const unsigned k[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : k[m - 1];
}

// Parses the zone suffix at s[pos..len) into an offset in minutes east of UTC.
bool parse_zone(const char *s, size_t len, size_t pos, int64_t *offset_min) {
    *offset_min = 0;
    if (pos == len)
        return true;
    if (len - pos == 1 && (s[pos] == 'Z' || s[pos] == 'z'))
        return true;
    if (len - pos == 3 && (s[pos] == 'U' || s[pos] == 'u') && (s[pos + 1] == 'T' || s[pos + 1] == 't') &&
        (s[pos + 2] == 'C' || s[pos + 2] == 'c'))
        return true;
    if (s[pos] != '+' && s[pos] != '-')
        return false;
    const int64_t sign = s[pos] == '-' ? -1 : 1;
    pos++;
    int64_t hh = 0, mm = 0;
    if (!fixed_digits(s, len, &pos, 2, &hh))
        return false;
    if (expect(s, len, &pos, ':') || (pos < len && is_digit(s[pos]))) {
        if (!fixed_digits(s, len, &pos, 2, &mm))
            return false;
    }
    if (pos != len || hh > 15 || mm > 59)
        return false;
    *offset_min = sign * (hh * 60 + mm);
    return true;
}

bool parse_timestamp(const char *s, size_t len, int64_t *unix_ms) {
    size_t pos = 0;
    int64_t y, mo, d, h = 0, mi = 0, sec = 0, ms = 0;
    if (!fixed_digits(s, len, &pos, 4, &y) || !expect(s, len, &pos, '-') ||
        !fixed_digits(s, len, &pos, 2, &mo) || !expect(s, len, &pos, '-') ||
        !fixed_digits(s, len, &pos, 2, &d))
        return false;
    if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, static_cast<unsigned>(mo)))
        return false;
    if (pos < len && (s[pos] == ' ' || s[pos] == 'T' || s[pos] == 't')) {
        pos++;
        if (!fixed_digits(s, len, &pos, 2, &h) || !expect(s, len, &pos, ':') ||
            !fixed_digits(s, len, &pos, 2, &mi))
            return false;
        if (expect(s, len, &pos, ':') && !fixed_digits(s, len, &pos, 2, &sec))
            return false;
        if (expect(s, len, &pos, '.')) {
            // Up to 3 fractional digits are kept; more are refused rather
            // than silently truncated, since the epoch is exact to the ms.
            int digits = 0;
            while (pos < len && is_digit(s[pos]) && digits < 3) {
                ms = ms * 10 + (s[pos++] - '0');
                digits++;
            }
            if (digits == 0 || (pos < len && is_digit(s[pos])))
                return false;
            while (digits++ < 3)
                ms *= 10;
        }
        if (h > 23 || mi > 59 || sec > 59)
            return false;
        if (pos < len && s[pos] == ' ')
            pos++;
    }
    int64_t offset_min;
    if (!parse_zone(s, len, pos, &offset_min))
        return false;
    const int64_t days = days_from_civil(y, static_cast<int>(mo), static_cast<int>(d));
    *unix_ms = ((days * 24 + h) * 60 + mi - offset_min) * 60000 + sec * 1000 + ms;
    return true;
}

}  // namespace

bool parse_int64(const char *s, size_t len, int64_t *out) {
    size_t pos = 0;
    const bool neg = len > 0 && s[0] == '-';
    if (neg)
        pos++;
    if (pos == len)
        return false;
    // Accumulate negatively so INT64_MIN parses without overflow.
    int64_t v = 0;
    const int64_t min = INT64_MIN;
    for (; pos < len; pos++) {
        if (!is_digit(s[pos]))
            return false;
        const int digit = s[pos] - '0';
        if (v < (min + digit) / 10)
            return false;
        v = v * 10 - digit;
    }
    if (!neg) {
        if (v == min)
            return false;
        v = -v;
    }
    *out = v;
    return true;
}

bool parse_epoch(const char *s, size_t len, int64_t *unix_ms) {
    while (len > 0 && is_blank(s[0])) {
        s++;
        len--;
    }
    while (len > 0 && is_blank(s[len - 1]))
        len--;
    if (len == 0)
        return false;
    bool all_digits = true;
    for (size_t i = 0; i < len; i++)
        all_digits = all_digits && (is_digit(s[i]) || (i == 0 && s[i] == '-'));
    if (all_digits)
        return parse_int64(s, len, unix_ms);
    return parse_timestamp(s, len, unix_ms);
}

}  // namespace snowflake
