// Fuzzes the parsers of the snowflake.epoch setting and of plain integers.
// Invariants:
//   - parse_epoch and parse_int64 never crash on any bytes;
//   - parse_int64 accepts exactly optional '-' then digits without overflow,
//     and then agrees with strtoll;
//   - a well-formed timestamp built from fuzzed fields parses to the value
//     the calendar arithmetic gives, whatever separator and zone it uses.
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "calendar.hpp"
#include "epoch.hpp"
#include "fuzz_input.hpp"

using namespace snowflake;

namespace {

bool strict_integer_syntax(const char *s, size_t len) {
    size_t i = (len > 0 && s[0] == '-') ? 1 : 0;
    if (i == len)
        return false;
    for (; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

void check_int64(const char *s, size_t len) {
    int64_t v = 424242;
    const bool ok = parse_int64(s, len, &v);
    if (!ok)
        FUZZ_CHECK(v == 424242);
    if (!strict_integer_syntax(s, len)) {
        FUZZ_CHECK(!ok);
        return;
    }
    // strtoll needs a NUL-terminated copy.
    char buf[256];
    if (len >= sizeof buf)
        return;
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    char *end = nullptr;
    const long long ref = strtoll(buf, &end, 10);
    FUZZ_CHECK(end == buf + len);
    FUZZ_CHECK(ok == (errno != ERANGE));
    if (ok)
        FUZZ_CHECK(v == ref);
}

void check_epoch_text(const char *s, size_t len) {
    int64_t ms = 777;
    const bool ok = parse_epoch(s, len, &ms);
    if (!ok) {
        FUZZ_CHECK(ms == 777);
        return;
    }
    // Every accepted text is an integer (after trimming) or starts with a year.
    size_t b = 0, e = len;
    while (b < e && (s[b] == ' ' || s[b] == '\t'))
        b++;
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t'))
        e--;
    FUZZ_CHECK(e > b);
    if (strict_integer_syntax(s + b, e - b)) {
        int64_t v;
        FUZZ_CHECK(parse_int64(s + b, e - b, &v) && v == ms);
    } else {
        FUZZ_CHECK(e - b >= 10 && s[b + 4] == '-' && s[b + 7] == '-');
    }
}

int days_in_month(int64_t y, int m) {
    static const int k[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : k[m - 1];
}

// Builds a valid timestamp text from fuzzed fields and checks its value.
void check_built_timestamp(fuzz::Input &in) {
    const int64_t y = in.range(0, 9999);
    const int mo = static_cast<int>(in.range(1, 12));
    const int d = static_cast<int>(in.range(1, days_in_month(y, mo)));
    const int h = static_cast<int>(in.range(0, 23));
    const int mi = static_cast<int>(in.range(0, 59));
    const int sec = static_cast<int>(in.range(0, 59));
    const int ms = static_cast<int>(in.range(0, 999));
    const int zh = static_cast<int>(in.range(0, 15));
    const int zm = static_cast<int>(in.range(0, 59));
    const uint8_t shape = in.byte();

    char text[96];
    int n = snprintf(text, sizeof text, "%s%04lld-%02d-%02d", (shape & 1) ? " \t" : "",
                     static_cast<long long>(y), mo, d);
    int64_t expect = days_from_civil(y, mo, d) * 86400000LL;
    if (shape & 2) {
        n += snprintf(text + n, sizeof text - n, "%c%02d:%02d", (shape & 4) ? 'T' : ' ', h, mi);
        expect += (h * 60LL + mi) * 60000LL;
        if (shape & 8) {
            n += snprintf(text + n, sizeof text - n, ":%02d", sec);
            expect += sec * 1000LL;
            if (shape & 16) {
                n += snprintf(text + n, sizeof text - n, ".%03d", ms);
                expect += ms;
            }
        }
        switch ((shape >> 5) & 3) {
        case 0:
            break;
        case 1:
            n += snprintf(text + n, sizeof text - n, "Z");
            break;
        case 2:
            n += snprintf(text + n, sizeof text - n, "+%02d:%02d", zh, zm);
            expect -= (zh * 60LL + zm) * 60000LL;
            break;
        case 3:
            n += snprintf(text + n, sizeof text - n, "-%02d:%02d", zh, zm);
            expect += (zh * 60LL + zm) * 60000LL;
            break;
        }
    }
    if (shape & 128)
        n += snprintf(text + n, sizeof text - n, "  ");
    int64_t got = -1;
    if (!parse_epoch(text, static_cast<size_t>(n), &got)) {
        fprintf(stderr, "refused: \"%s\"\n", text);
        FUZZ_CHECK(false);
    }
    if (got != expect) {
        fprintf(stderr, "\"%s\": got %lld, expected %lld\n", text, static_cast<long long>(got),
                static_cast<long long>(expect));
        FUZZ_CHECK(false);
    }
}

void check_built_integer(fuzz::Input &in) {
    const int64_t v = in.i64();
    char text[32];
    const int n = snprintf(text, sizeof text, "%lld", static_cast<long long>(v));
    int64_t got = 0;
    FUZZ_CHECK(parse_int64(text, static_cast<size_t>(n), &got) && got == v);
    FUZZ_CHECK(parse_epoch(text, static_cast<size_t>(n), &got) && got == v);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *s = reinterpret_cast<const char *>(data);
    check_int64(s, size);
    check_epoch_text(s, size);
    fuzz::Input in(data, size);
    check_built_integer(in);
    check_built_timestamp(in);
    return 0;
}
