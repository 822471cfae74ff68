// A tiny reader that turns libFuzzer's byte string into typed values.
// Running out of bytes yields zeros, so every input is a valid program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace fuzz {

class Input {
  public:
    Input(const uint8_t *data, size_t size) : data_(data), size_(size) {}

    bool empty() const { return size_ == 0; }
    size_t remaining() const { return size_; }

    uint8_t byte() {
        if (size_ == 0)
            return 0;
        size_--;
        return *data_++;
    }
    uint32_t u32() {
        uint32_t v = 0;
        for (int i = 0; i < 4; i++)
            v = (v << 8) | byte();
        return v;
    }
    uint64_t u64() { return (static_cast<uint64_t>(u32()) << 32) | u32(); }
    int64_t i64() { return static_cast<int64_t>(u64()); }
    // A value in [lo, hi] (inclusive; requires lo <= hi).
    int64_t range(int64_t lo, int64_t hi) {
        const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
        const uint64_t r = span == UINT64_MAX ? u64() : u64() % (span + 1);
        return static_cast<int64_t>(static_cast<uint64_t>(lo) + r);
    }
    // The rest of the input as raw bytes.
    const char *rest(size_t *len) {
        const char *p = reinterpret_cast<const char *>(data_);
        *len = size_;
        data_ += size_;
        size_ = 0;
        return p;
    }
    // Up to max bytes, length taken from the input.
    const char *chunk(size_t max, size_t *len) {
        size_t n = byte();
        if (n > max)
            n = max;
        if (n > size_)
            n = size_;
        const char *p = reinterpret_cast<const char *>(data_);
        data_ += n;
        size_ -= n;
        *len = n;
        return p;
    }

  private:
    const uint8_t *data_;
    size_t size_;
};

}  // namespace fuzz

// An invariant failed: say which, and abort so libFuzzer keeps the input.
#define FUZZ_CHECK(cond)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);    \
            abort();                                                                       \
        }                                                                                  \
    } while (0)
