#include "text_codec.hpp"

#include <array>

namespace snowflake {

namespace {

constexpr char kBase62Alphabet[] =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
constexpr char kBase32Alphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
constexpr char kHexAlphabet[] = "0123456789abcdef";

constexpr uint64_t kMaxId = static_cast<uint64_t>(INT64_MAX);

// Digit values for ASCII bytes; -1 marks a byte outside the alphabet.  Built
// at compile time so decoding is one table lookup per byte.
using DigitTable = std::array<int8_t, 128>;

constexpr DigitTable make_table(const char *alphabet, int base, bool fold_case) {
    DigitTable t{};
    for (auto &v : t)
        v = -1;
    for (int i = 0; i < base; ++i) {
        const char c = alphabet[i];
        t[static_cast<unsigned char>(c)] = static_cast<int8_t>(i);
        if (fold_case && c >= 'A' && c <= 'Z')
            t[static_cast<unsigned char>(c - 'A' + 'a')] = static_cast<int8_t>(i);
        if (fold_case && c >= 'a' && c <= 'z')
            t[static_cast<unsigned char>(c - 'a' + 'A')] = static_cast<int8_t>(i);
    }
    return t;
}

constexpr DigitTable make_crockford_table() {
    DigitTable t = make_table(kBase32Alphabet, 32, true);
    // Crockford's aliases for the letters easily misread as digits.
    t['O'] = t['o'] = 0;
    t['I'] = t['i'] = t['L'] = t['l'] = 1;
    return t;
}

constexpr DigitTable kBase62Table = make_table(kBase62Alphabet, 62, false);
constexpr DigitTable kBase32Table = make_crockford_table();
constexpr DigitTable kHexTable = make_table(kHexAlphabet, 16, true);

struct Codec {
    const char *alphabet;
    const DigitTable *table;
    unsigned base;
    size_t width;
    bool skip_hyphens;
};

Codec codec_for(TextFormat f) {
    switch (f) {
    case TextFormat::Base62:
        return {kBase62Alphabet, &kBase62Table, 62, 11, false};
    case TextFormat::Base32:
        return {kBase32Alphabet, &kBase32Table, 32, 13, true};
    case TextFormat::Hex:
        return {kHexAlphabet, &kHexTable, 16, 16, false};
    }
    return {kHexAlphabet, &kHexTable, 16, 16, false};  // unreachable for valid enums
}

bool ascii_iequal(const char *a, size_t len, const char *lower) {
    size_t i = 0;
    for (; i < len; ++i) {
        char c = a[i];
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
        if (lower[i] == '\0' || c != lower[i])
            return false;
    }
    return lower[i] == '\0';
}

}  // namespace

const char *encode_error_text(EncodeError e) {
    switch (e) {
    case EncodeError::None:
        return "ok";
    case EncodeError::NegativeId:
        return "snowflake ids are non-negative";
    case EncodeError::BufferTooSmall:
        return "output buffer too small";
    }
    return "unknown encode error";
}

const char *decode_error_text(DecodeError e) {
    switch (e) {
    case DecodeError::None:
        return "ok";
    case DecodeError::Empty:
        return "empty input";
    case DecodeError::BadCharacter:
        return "invalid character";
    case DecodeError::Overflow:
        return "value out of range for a snowflake id (above 9223372036854775807)";
    }
    return "unknown decode error";
}

bool parse_text_format(const char *name, size_t len, TextFormat *out) {
    static const TextFormat kAll[] = {TextFormat::Base62, TextFormat::Base32, TextFormat::Hex};
    for (TextFormat f : kAll) {
        if (ascii_iequal(name, len, text_format_name(f))) {
            *out = f;
            return true;
        }
    }
    return false;
}

const char *text_format_name(TextFormat f) {
    switch (f) {
    case TextFormat::Base62:
        return "base62";
    case TextFormat::Base32:
        return "base32";
    case TextFormat::Hex:
        return "hex";
    }
    return "unknown";
}

size_t encoded_width(TextFormat f) { return codec_for(f).width; }

EncodeError encode_id(int64_t id, TextFormat f, char *buf, size_t buflen, size_t *outlen) {
    if (id < 0)
        return EncodeError::NegativeId;
    const Codec c = codec_for(f);
    if (buflen < c.width)
        return EncodeError::BufferTooSmall;
    // Fill from the right; the width always suffices for 63 bits, so the
    // leftover high positions get the zero digit as padding.
    uint64_t v = static_cast<uint64_t>(id);
    for (size_t i = c.width; i-- > 0;) {
        buf[i] = c.alphabet[v % c.base];
        v /= c.base;
    }
    if (buflen > c.width)
        buf[c.width] = '\0';
    *outlen = c.width;
    return EncodeError::None;
}

DecodeError decode_id(const char *text, size_t len, TextFormat f, int64_t *out,
                      size_t *bad_pos) {
    const Codec c = codec_for(f);
    uint64_t v = 0;
    bool any_digit = false;
    bool overflow = false;
    if (bad_pos)
        *bad_pos = 0;
    // One pass; after an overflow keep scanning so a bad character later in
    // the text is still reported (it is the more specific complaint).
    for (size_t i = 0; i < len; ++i) {
        const unsigned char ch = static_cast<unsigned char>(text[i]);
        if (c.skip_hyphens && ch == '-')
            continue;
        const int d = ch < 128 ? (*c.table)[ch] : -1;
        if (d < 0) {
            if (bad_pos)
                *bad_pos = i + 1;
            return DecodeError::BadCharacter;
        }
        any_digit = true;
        // v * base + d <= kMaxId  <=>  v <= (kMaxId - d) / base  (exact in integers)
        if (overflow || v > (kMaxId - static_cast<uint64_t>(d)) / c.base)
            overflow = true;
        else
            v = v * c.base + static_cast<uint64_t>(d);
    }
    if (!any_digit)
        return DecodeError::Empty;
    if (overflow)
        return DecodeError::Overflow;
    *out = static_cast<int64_t>(v);
    return DecodeError::None;
}

OtherForm other_form(const char *text, size_t len, TextFormat tried) {
    // Text that fits the format's width is most likely meant in it.
    if (len <= encoded_width(tried))
        return OtherForm::None;
    bool digits = true;
    uint64_t value = 0;
    for (size_t i = 0; i < len && digits; i++) {
        const char c = text[i];
        if (c < '0' || c > '9' || value > (kMaxId - static_cast<uint64_t>(c - '0')) / 10)
            digits = false;
        else
            value = value * 10 + static_cast<uint64_t>(c - '0');
    }
    if (digits)
        return OtherForm::Decimal;
    int64_t id;
    size_t pos;
    if (tried != TextFormat::Hex &&
        decode_id(text, len, TextFormat::Hex, &id, &pos) == DecodeError::None)
        return OtherForm::Hex;
    return OtherForm::None;
}

}  // namespace snowflake
