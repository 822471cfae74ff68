// Fuzzes the text codecs (base62, Crockford base32, hex) and the business
// serials.  Invariants:
//   - decode_id and parse_serial never crash on any bytes;
//   - whatever decodes is a non-negative id whose encoding decodes back to it;
//   - every non-negative int64 encodes to its fixed width and decodes back,
//     and encodings of two ids compare bytewise like the ids;
//   - a serial that parses is the canonical serial of its id, and every id a
//     layout can hold formats to a serial that parses back to it.
#include <cstring>

#include "fuzz_input.hpp"
#include "layout.hpp"
#include "serial.hpp"
#include "text_codec.hpp"

using namespace snowflake;

namespace {

const TextFormat kFormats[] = {TextFormat::Base62, TextFormat::Base32, TextFormat::Hex};

void check_encode_round_trip(int64_t id, TextFormat f, char *out) {
    char buf[kMaxEncodedWidth + 1];
    size_t len = 0;
    FUZZ_CHECK(encode_id(id, f, buf, sizeof buf, &len) == EncodeError::None);
    FUZZ_CHECK(len == encoded_width(f));
    FUZZ_CHECK(buf[len] == '\0');
    int64_t back = -1;
    size_t bad = 99;
    FUZZ_CHECK(decode_id(buf, len, f, &back, &bad) == DecodeError::None);
    FUZZ_CHECK(back == id && bad == 0);
    // Too small a buffer is refused, never overrun.
    char small[kMaxEncodedWidth];
    size_t untouched = 12345;
    FUZZ_CHECK(encode_id(id, f, small, len - 1, &untouched) == EncodeError::BufferTooSmall);
    FUZZ_CHECK(untouched == 12345);
    if (out)
        memcpy(out, buf, len + 1);
}

void check_decode(const char *text, size_t len, TextFormat f) {
    int64_t id = -1;
    size_t bad = 12345;
    const DecodeError e = decode_id(text, len, f, &id, &bad);
    // The hint's guess: what it names must read as that form.
    const OtherForm other = other_form(text, len, f);
    if (other == OtherForm::Hex) {
        int64_t hex_id;
        size_t hex_bad;
        FUZZ_CHECK(f != TextFormat::Hex &&
                   decode_id(text, len, TextFormat::Hex, &hex_id, &hex_bad) == DecodeError::None);
    }
    if (other == OtherForm::Decimal)
        for (size_t i = 0; i < len; i++)
            FUZZ_CHECK(text[i] >= '0' && text[i] <= '9');
    if (e == DecodeError::BadCharacter) {
        FUZZ_CHECK(bad >= 1 && bad <= len);
        for (size_t i = 0; i + 1 < bad; i++)  // everything before it is ASCII
            FUZZ_CHECK(static_cast<unsigned char>(text[i]) < 128);
        return;
    }
    FUZZ_CHECK(bad == 0);
    if (e != DecodeError::None)
        return;
    FUZZ_CHECK(id >= 0);
    check_encode_round_trip(id, f, nullptr);
}

void check_negative_refused(int64_t a) {
    char buf[kMaxEncodedWidth + 1];
    size_t len = 777;
    if (a < 0)
        for (TextFormat f : kFormats)
            FUZZ_CHECK(encode_id(a, f, buf, sizeof buf, &len) == EncodeError::NegativeId &&
                       len == 777);
}

// An id near id (within [0, INT64_MAX]): neighbours differ in the last digits.
int64_t neighbour(int64_t id, int delta) {
    if (delta < 0)
        return id < -delta ? 0 : id + delta;
    return id > INT64_MAX - delta ? INT64_MAX : id + delta;
}

// Non-negative ids round trip, and their encodings sort like the ids.
void check_ordering(int64_t a, int64_t b) {
    for (TextFormat f : kFormats) {
        char ea[kMaxEncodedWidth + 1], eb[kMaxEncodedWidth + 1];
        check_encode_round_trip(a, f, ea);
        check_encode_round_trip(b, f, eb);
        const int c = memcmp(ea, eb, encoded_width(f));
        FUZZ_CHECK((c < 0) == (a < b) && (c == 0) == (a == b));
    }
}

// A few layouts: the default, the narrowest and widest fields, zero-width ones.
Layout layout_from(uint8_t sel, int64_t epoch) {
    static const int kWidths[][3] = {{5, 5, 12}, {0, 0, 1}, {0, 10, 12}, {9, 9, 10},
                                     {1, 1, 26}, {8, 8, 8}, {3, 0, 20}, {0, 0, 28}};
    Layout l;
    const int *w = kWidths[sel % 8];
    l.datacenter_bits = w[0];
    l.worker_bits = w[1];
    l.sequence_bits = w[2];
    // Epochs from year 0 to past year 9999 reach both YearOutOfRange ends.
    if (sel & 8)
        l.epoch_ms = epoch % 400000000000000LL;
    return l;
}

void check_serial_text(const Layout &l, const char *text, size_t len) {
    int64_t id = -1;
    size_t bad = 12345;
    const SerialError e = parse_serial(l, text, len, &id, &bad);
    if (e == SerialError::BadCharacter || e == SerialError::InvalidDate ||
        e == SerialError::PartOutOfRange) {
        FUZZ_CHECK(bad >= 1 && bad <= len);
        return;
    }
    FUZZ_CHECK(bad == 0);
    if (e != SerialError::None)
        return;
    FUZZ_CHECK(id >= 0);
    char buf[kMaxSerialWidth + 1];
    size_t out = 0;
    FUZZ_CHECK(format_serial(l, id, buf, sizeof buf, &out) == SerialError::None);
    FUZZ_CHECK(out == len && memcmp(buf, text, len) == 0);
}

void check_serial_id(const Layout &l, int64_t id) {
    char buf[kMaxSerialWidth + 1];
    size_t len = 0;
    const SerialError e = format_serial(l, id, buf, sizeof buf, &len);
    if (id < 0) {
        FUZZ_CHECK(e == SerialError::NegativeId);
        return;
    }
    if (e == SerialError::YearOutOfRange)
        return;
    FUZZ_CHECK(e == SerialError::None);
    FUZZ_CHECK(len == serial_width(l) && buf[len] == '\0');
    int64_t back = -1;
    size_t bad = 99;
    const SerialError p = parse_serial(l, buf, len, &back, &bad);
    FUZZ_CHECK(p == SerialError::None);
    FUZZ_CHECK(back == id && bad == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // 1. The whole input as text in every format.
    for (TextFormat f : kFormats)
        check_decode(reinterpret_cast<const char *>(data), size, f);

    fuzz::Input in(data, size);
    const uint8_t mode = in.byte();
    const int64_t a = in.i64();
    const int64_t b = in.i64();
    // 2. Arbitrary ids: negative ones refused, the rest round trip and order.
    check_negative_refused(a);
    check_ordering(a & INT64_MAX, b & INT64_MAX);
    check_ordering(a & INT64_MAX, neighbour(a & INT64_MAX, static_cast<int>(b & 0x7f) - 64));

    // 3. Serials of a layout: fuzzed ids, then the remaining bytes as text.
    const Layout l = layout_from(mode, b < 0 ? -(b / 2) : b);
    check_serial_id(l, a);
    check_serial_id(l, a & INT64_MAX);
    check_serial_id(l, (a & INT64_MAX) >> (mode >> 4));  // small ids too
    size_t len;
    const char *text = in.rest(&len);
    check_serial_text(l, text, len);
    // Also as text of exactly the layout's width, the case that reaches the
    // calendar and field checks.
    if (len >= serial_width(l))
        check_serial_text(l, text, serial_width(l));
    return 0;
}
