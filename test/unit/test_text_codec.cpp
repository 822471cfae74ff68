// Unit tests of the fixed-width id encodings (src/core/text_codec).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "text_codec.hpp"

using namespace snowflake;

namespace {

const TextFormat kFormats[] = {TextFormat::Base62, TextFormat::Base32, TextFormat::Hex};

std::string enc(int64_t id, TextFormat f) {
    char buf[kMaxEncodedWidth + 1];
    size_t n = 0;
    EXPECT_EQ(encode_id(id, f, buf, sizeof buf, &n), EncodeError::None);
    EXPECT_EQ(buf[n], '\0');
    return std::string(buf, n);
}

DecodeError dec(const std::string &s, TextFormat f, int64_t *out, size_t *pos = nullptr) {
    return decode_id(s.data(), s.size(), f, out, pos);
}

int64_t dec_ok(const std::string &s, TextFormat f) {
    int64_t v = -1;
    EXPECT_EQ(dec(s, f, &v), DecodeError::None) << s;
    return v;
}

// Reference encoder written independently of the code under test: repeated
// division with std::string, unpadded, then padded.
std::string ref_encode(uint64_t v, unsigned base, const char *alphabet, size_t width) {
    std::string s;
    do {
        s.insert(s.begin(), alphabet[v % base]);
        v /= base;
    } while (v);
    return std::string(width - s.size(), '0') + s;
}

const int64_t kMax = INT64_MAX;
const int64_t kEdges[] = {0, 1, int64_t{1} << 53, (int64_t{1} << 53) + 1, kMax};

}  // namespace

TEST(TextCodecTextFormatName, ParsesTheThreeNamesCaseInsensitively) {
    TextFormat f;
    ASSERT_TRUE(parse_text_format("base62", 6, &f));
    EXPECT_EQ(f, TextFormat::Base62);
    ASSERT_TRUE(parse_text_format("BASE32", 6, &f));
    EXPECT_EQ(f, TextFormat::Base32);
    ASSERT_TRUE(parse_text_format("Hex", 3, &f));
    EXPECT_EQ(f, TextFormat::Hex);
    for (TextFormat g : kFormats) {
        const char *name = text_format_name(g);
        ASSERT_TRUE(parse_text_format(name, std::strlen(name), &f));
        EXPECT_EQ(f, g);
    }
}

TEST(TextCodecTextFormatName, RejectsEverythingElse) {
    TextFormat f = TextFormat::Hex;
    for (const char *bad : {"", "base", "base6", "base622", "hex ", " hex", "base64", "crockford",
                            "0x", "b62", "base32x"}) {
        EXPECT_FALSE(parse_text_format(bad, std::strlen(bad), &f)) << bad;
    }
    EXPECT_FALSE(parse_text_format("hexadecimal", 3 + 1, &f));  // "hexa": length honoured
    EXPECT_TRUE(parse_text_format("hexadecimal", 3, &f));       // "hex"
    EXPECT_EQ(f, TextFormat::Hex);
}

TEST(TextCodecEncode, Widths) {
    EXPECT_EQ(encoded_width(TextFormat::Base62), 11u);
    EXPECT_EQ(encoded_width(TextFormat::Base32), 13u);
    EXPECT_EQ(encoded_width(TextFormat::Hex), 16u);
    for (TextFormat f : kFormats)
        EXPECT_LE(encoded_width(f), kMaxEncodedWidth);
}

TEST(TextCodecEncode, KnownValues) {
    EXPECT_EQ(enc(0, TextFormat::Base62), "00000000000");
    EXPECT_EQ(enc(0, TextFormat::Base32), "0000000000000");
    EXPECT_EQ(enc(0, TextFormat::Hex), "0000000000000000");
    EXPECT_EQ(enc(61, TextFormat::Base62), "0000000000z");
    EXPECT_EQ(enc(62, TextFormat::Base62), "00000000010");
    EXPECT_EQ(enc(31, TextFormat::Base32), "000000000000Z");
    EXPECT_EQ(enc(255, TextFormat::Hex), "00000000000000ff");
    // 2^63-1, computed independently (Python) and by the reference encoder.
    EXPECT_EQ(enc(kMax, TextFormat::Base62), "AzL8n0Y58m7");
    EXPECT_EQ(enc(kMax, TextFormat::Base32), "7ZZZZZZZZZZZZ");
    EXPECT_EQ(enc(kMax, TextFormat::Hex), "7fffffffffffffff");
    EXPECT_EQ(enc(910499571847892992, TextFormat::Hex), "0ca2be895c239000");
}

TEST(TextCodecEncode, MatchesReferenceEncoder) {
    std::mt19937_64 rng(42);
    const char *b62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    const char *b32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    const char *hex = "0123456789abcdef";
    for (int i = 0; i < 10000; ++i) {
        const uint64_t v = rng() >> (1 + rng() % 63);  // spread over all magnitudes
        const int64_t id = static_cast<int64_t>(v);
        ASSERT_EQ(enc(id, TextFormat::Base62), ref_encode(v, 62, b62, 11));
        ASSERT_EQ(enc(id, TextFormat::Base32), ref_encode(v, 32, b32, 13));
        ASSERT_EQ(enc(id, TextFormat::Hex), ref_encode(v, 16, hex, 16));
    }
}

TEST(TextCodecEncode, NegativeIdIsAnError) {
    char buf[32];
    size_t n = 99;
    for (TextFormat f : kFormats) {
        EXPECT_EQ(encode_id(-1, f, buf, sizeof buf, &n), EncodeError::NegativeId);
        EXPECT_EQ(encode_id(INT64_MIN, f, buf, sizeof buf, &n), EncodeError::NegativeId);
    }
    EXPECT_EQ(n, 99u);
}

TEST(TextCodecEncode, BufferSizes) {
    for (TextFormat f : kFormats) {
        const size_t w = encoded_width(f);
        char buf[32];
        std::memset(buf, 'x', sizeof buf);
        size_t n = 0;
        EXPECT_EQ(encode_id(1, f, buf, w - 1, &n), EncodeError::BufferTooSmall);
        EXPECT_EQ(encode_id(1, f, buf, 0, &n), EncodeError::BufferTooSmall);
        // Exactly the width: no NUL written, the next byte is untouched.
        ASSERT_EQ(encode_id(1, f, buf, w, &n), EncodeError::None);
        EXPECT_EQ(n, w);
        EXPECT_EQ(buf[w], 'x');
        ASSERT_EQ(encode_id(1, f, buf, w + 1, &n), EncodeError::None);
        EXPECT_EQ(buf[w], '\0');
    }
}

TEST(TextCodecRoundTrip, EdgesAllFormats) {
    for (TextFormat f : kFormats)
        for (int64_t id : kEdges)
            EXPECT_EQ(dec_ok(enc(id, f), f), id) << text_format_name(f) << " " << id;
}

TEST(TextCodecRoundTrip, RandomIdsFixedWidth) {
    for (TextFormat f : kFormats) {
        std::mt19937_64 rng(20240601);
        const size_t w = encoded_width(f);
        for (int i = 0; i < 100000; ++i) {
            // Half uniform over 63 bits, half with a random magnitude so
            // short values (many padding digits) are covered too.
            uint64_t v = rng() >> 1;
            if (i & 1)
                v >>= rng() % 63;
            const int64_t id = static_cast<int64_t>(v);
            const std::string s = enc(id, f);
            ASSERT_EQ(s.size(), w);
            int64_t back = -1;
            ASSERT_EQ(dec(s, f, &back), DecodeError::None) << s;
            ASSERT_EQ(back, id) << text_format_name(f) << " " << s;
        }
    }
}

TEST(TextCodecRoundTrip, SortOrderMatchesIds) {
    for (TextFormat f : kFormats) {
        std::mt19937_64 rng(7);
        for (int i = 0; i < 100000; ++i) {
            const int64_t a = static_cast<int64_t>((rng() >> 1) >> (rng() % 63));
            // Half the pairs are close together, to exercise low digits.
            const int64_t b = (i & 1) ? static_cast<int64_t>((rng() >> 1) >> (rng() % 63))
                                      : (a < kMax - 100 ? a + static_cast<int64_t>(rng() % 100)
                                                        : a);
            const int c = std::strcmp(enc(a, f).c_str(), enc(b, f).c_str());
            ASSERT_EQ(c < 0, a < b) << a << " " << b;
            ASSERT_EQ(c == 0, a == b) << a << " " << b;
        }
    }
}

TEST(TextCodecDecode, LeadingZerosAndShortForms) {
    for (TextFormat f : kFormats) {
        EXPECT_EQ(dec_ok("0", f), 0);
        EXPECT_EQ(dec_ok("1", f), 1);
        EXPECT_EQ(dec_ok(std::string(40, '0') + "1", f), 1);
        EXPECT_EQ(dec_ok("10", f), f == TextFormat::Base62 ? 62 : f == TextFormat::Base32 ? 32 : 16);
        EXPECT_EQ(dec_ok(std::string(30, '0') + enc(kMax, f), f), kMax);
    }
}

TEST(TextCodecDecode, Empty) {
    int64_t v = 0;
    size_t pos = 99;
    for (TextFormat f : kFormats) {
        EXPECT_EQ(decode_id("", 0, f, &v, &pos), DecodeError::Empty);
        EXPECT_EQ(pos, 0u);
        EXPECT_EQ(decode_id(nullptr, 0, f, &v, nullptr), DecodeError::Empty);
    }
    EXPECT_EQ(dec("-", TextFormat::Base32, &v), DecodeError::Empty);
    EXPECT_EQ(dec("---", TextFormat::Base32, &v), DecodeError::Empty);
    // Hyphens are only separators in Crockford base32.
    EXPECT_EQ(dec("-", TextFormat::Base62, &v, &pos), DecodeError::BadCharacter);
    EXPECT_EQ(pos, 1u);
    EXPECT_EQ(dec("-", TextFormat::Hex, &v, &pos), DecodeError::BadCharacter);
}

TEST(TextCodecDecode, BadCharacterPositionIsOneBased) {
    int64_t v = 0;
    size_t pos = 0;
    EXPECT_EQ(dec("abc!", TextFormat::Base62, &v, &pos), DecodeError::BadCharacter);
    EXPECT_EQ(pos, 4u);
    EXPECT_EQ(dec("+1", TextFormat::Base62, &v, &pos), DecodeError::BadCharacter);
    EXPECT_EQ(pos, 1u);
    EXPECT_EQ(dec("12 3", TextFormat::Hex, &v, &pos), DecodeError::BadCharacter);
    EXPECT_EQ(pos, 3u);
    EXPECT_EQ(dec("0x10", TextFormat::Hex, &v, &pos), DecodeError::BadCharacter);  // strict
    EXPECT_EQ(pos, 2u);
    EXPECT_EQ(dec("00g", TextFormat::Hex, &v, &pos), DecodeError::BadCharacter);
    EXPECT_EQ(pos, 3u);
    EXPECT_EQ(dec("ABU", TextFormat::Base32, &v, &pos), DecodeError::BadCharacter);  // no U
    EXPECT_EQ(pos, 3u);
    EXPECT_EQ(dec("A-u", TextFormat::Base32, &v, &pos), DecodeError::BadCharacter);
    EXPECT_EQ(pos, 3u);  // hyphens still count as positions
    EXPECT_EQ(dec("A_B", TextFormat::Base32, &v, &pos), DecodeError::BadCharacter);
    EXPECT_EQ(pos, 2u);
    // Embedded NUL is a byte like any other.
    EXPECT_EQ(dec(std::string("12\0" "3", 4), TextFormat::Hex, &v, &pos),
              DecodeError::BadCharacter);
    EXPECT_EQ(pos, 3u);
    // Non-ASCII: position of the first byte of the UTF-8 sequence ("é" = C3 A9).
    EXPECT_EQ(dec("ab\xC3\xA9", TextFormat::Base62, &v, &pos), DecodeError::BadCharacter);
    EXPECT_EQ(pos, 3u);
    EXPECT_EQ(dec("\xFF", TextFormat::Base32, &v, &pos), DecodeError::BadCharacter);
    EXPECT_EQ(pos, 1u);
    // A null bad_pos is allowed.
    EXPECT_EQ(dec("!", TextFormat::Hex, &v, nullptr), DecodeError::BadCharacter);
}

TEST(TextCodecDecode, BadCharacterWinsOverOverflow) {
    int64_t v = 0;
    size_t pos = 0;
    EXPECT_EQ(dec("zzzzzzzzzzzzzzzz!", TextFormat::Base62, &v, &pos), DecodeError::BadCharacter);
    EXPECT_EQ(pos, 17u);
}

TEST(TextCodecDecode, Overflow) {
    int64_t v = 12345;
    size_t pos = 99;
    // One past 2^63-1 in each format, computed by the reference encoder.
    const std::string b62 = ref_encode(uint64_t{1} << 63, 62,
                                       "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 11);
    EXPECT_EQ(b62, "AzL8n0Y58m8");
    EXPECT_EQ(dec(b62, TextFormat::Base62, &v, &pos), DecodeError::Overflow);
    EXPECT_EQ(pos, 0u);
    EXPECT_EQ(v, 12345);  // untouched on error
    EXPECT_EQ(dec("8000000000000", TextFormat::Base32, &v), DecodeError::Overflow);
    EXPECT_EQ(dec("8000000000000000", TextFormat::Hex, &v), DecodeError::Overflow);
    EXPECT_EQ(dec("ffffffffffffffff", TextFormat::Hex, &v), DecodeError::Overflow);
    EXPECT_EQ(dec("10000000000000000", TextFormat::Hex, &v), DecodeError::Overflow);  // 2^64
    EXPECT_EQ(dec("100000000000000000", TextFormat::Hex, &v), DecodeError::Overflow);
    EXPECT_EQ(dec(std::string(100, 'z'), TextFormat::Base62, &v), DecodeError::Overflow);
    EXPECT_EQ(dec("1" + std::string(20, '0'), TextFormat::Base32, &v), DecodeError::Overflow);
    // Exactly the maximum still decodes.
    EXPECT_EQ(dec_ok("AzL8n0Y58m7", TextFormat::Base62), kMax);
    EXPECT_EQ(dec_ok("7ZZZZZZZZZZZZ", TextFormat::Base32), kMax);
    EXPECT_EQ(dec_ok("7fffffffffffffff", TextFormat::Hex), kMax);
}

TEST(TextCodecDecode, Base62IsCaseSensitive) {
    EXPECT_EQ(dec_ok("a", TextFormat::Base62), 36);
    EXPECT_EQ(dec_ok("A", TextFormat::Base62), 10);
    EXPECT_NE(dec_ok("AzL8n0Y58m", TextFormat::Base62), dec_ok("azl8N0y58M", TextFormat::Base62));
    int64_t v;
    EXPECT_EQ(dec("azl8N0y58M7", TextFormat::Base62, &v), DecodeError::Overflow);  // 'a' > 'A'
}

TEST(TextCodecDecode, HexIsCaseInsensitive) {
    EXPECT_EQ(dec_ok("7FFFFFFFFFFFFFFF", TextFormat::Hex), kMax);
    EXPECT_EQ(dec_ok("aBcDeF", TextFormat::Hex), 0xabcdef);
}

TEST(TextCodecDecode, CrockfordCaseAliasesAndHyphens) {
    const TextFormat f = TextFormat::Base32;
    EXPECT_EQ(dec_ok("7zzzzzzzzzzzz", f), kMax);
    EXPECT_EQ(dec_ok("abcdefghjkm", f), dec_ok("ABCDEFGHJKM", f));
    EXPECT_EQ(dec_ok("npqrstvwxyz", f), dec_ok("NPQRSTVWXYZ", f));
    EXPECT_EQ(dec_ok("AbCdEfGhJkM", f), dec_ok("ABCDEFGHJKM", f));
    EXPECT_EQ(dec_ok("O", f), 0);
    EXPECT_EQ(dec_ok("o", f), 0);
    for (const char *one : {"I", "i", "L", "l"})
        EXPECT_EQ(dec_ok(one, f), 1) << one;
    EXPECT_EQ(dec_ok("1O", f), 32);
    EXPECT_EQ(dec_ok("lo", f), 32);
    EXPECT_EQ(dec_ok("Z", f), 31);
    EXPECT_EQ(dec_ok("z", f), 31);
    EXPECT_EQ(dec_ok("V", f), 27);
    // Hyphens anywhere are ignored.
    const std::string s = enc(910499571847892992, f);
    std::string grouped;
    for (size_t i = 0; i < s.size(); ++i) {
        if (i && i % 4 == 0)
            grouped += '-';
        grouped += s[i];
    }
    EXPECT_EQ(dec_ok(grouped, f), 910499571847892992);
    EXPECT_EQ(dec_ok("-1-0-", f), 32);
    EXPECT_EQ(dec_ok("--7ZZZZ--ZZZZZZZZ--", f), kMax);
}

TEST(TextCodecErrorText, EveryCodeHasLowercaseText) {
    for (EncodeError e : {EncodeError::None, EncodeError::NegativeId, EncodeError::BufferTooSmall}) {
        const char *t = encode_error_text(e);
        ASSERT_NE(t, nullptr);
        EXPECT_TRUE(t[0] >= 'a' && t[0] <= 'z') << t;
    }
    for (DecodeError e : {DecodeError::None, DecodeError::Empty, DecodeError::BadCharacter,
                          DecodeError::Overflow}) {
        const char *t = decode_error_text(e);
        ASSERT_NE(t, nullptr);
        EXPECT_TRUE(t[0] >= 'a' && t[0] <= 'z') << t;
    }
}

// The hints of snowflake_decode: a decimal id or hex text given to the
// default base62 is recognised for what it is.
TEST(TextCodecOtherForm, RecognisesDecimalIdsAndHex) {
    using snowflake::OtherForm;
    using snowflake::TextFormat;
    const auto of = [](const char *t, TextFormat f) {
        return snowflake::other_form(t, std::strlen(t), f);
    };
    EXPECT_EQ(of("910499571847892992", TextFormat::Base62), OtherForm::Decimal);
    EXPECT_EQ(of("9223372036854775807", TextFormat::Base32), OtherForm::Decimal);
    EXPECT_EQ(of("9223372036854775807", TextFormat::Hex), OtherForm::Decimal);
    // Text no longer than the format's width is taken as meant in it.
    EXPECT_EQ(of("0", TextFormat::Base62), OtherForm::None);
    EXPECT_EQ(of("8000000000000", TextFormat::Base32), OtherForm::None);
    EXPECT_EQ(of("8000000000000000", TextFormat::Hex), OtherForm::None);
    EXPECT_EQ(of("10000000000000000", TextFormat::Hex), OtherForm::Decimal);
    // Above 2^63-1 it is no id in any form.
    EXPECT_EQ(of("9223372036854775808", TextFormat::Base62), OtherForm::None);
    EXPECT_EQ(of("99999999999999999999999", TextFormat::Base62), OtherForm::None);
    EXPECT_EQ(of("0ca2be895c239000", TextFormat::Base62), OtherForm::Hex);
    EXPECT_EQ(of("0CA2BE895C239000", TextFormat::Base32), OtherForm::Hex);
    // Hex is not suggested to a hex decode, nor where hex overflows.
    EXPECT_EQ(of("0ca2be895c239000", TextFormat::Hex), OtherForm::None);
    EXPECT_EQ(of("ffffffffffffffff", TextFormat::Base62), OtherForm::None);
    EXPECT_EQ(of("", TextFormat::Base62), OtherForm::None);
    EXPECT_EQ(of("-5", TextFormat::Base62), OtherForm::None);
    EXPECT_EQ(of("15G63YLn9Ae", TextFormat::Base32), OtherForm::None);
    EXPECT_EQ(of("0x0ca2be895c239000", TextFormat::Base62), OtherForm::None);
}
