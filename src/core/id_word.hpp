// The id word: the one 64-bit value every id of a node is taken from.
//
//   | timestamp (T bits) | node (N bits) | counter (S + 1 bits) |
//
// T, N and S are the layout's timestamp, datacenter + worker and sequence
// widths (T + N + S = 63): a word holds the fields of an id with one more bit
// above the sequence.  The counter is the next sequence number to issue in
// the word's millisecond under the word's node; once it is past the layout's
// last sequence number the millisecond is used up.
//
// Why the extra bit: taking the next id can then be one fetch-and-add.  An add
// that finds the millisecond used up takes nothing, and each process makes at
// most one such add per millisecond (it looks before it adds, and a used-up
// millisecond stays used up), so the counter stays below
// 2^(S+1) -- no carry into the node or timestamp -- as long as the node has no
// more processes than sequence numbers (fetch_add_safe).
//
// Words order exactly like the ids taken from them, and every change to the
// word makes it larger, so a compare-and-swap never succeeds on a stale value
// (no ABA).
#pragma once

#ifdef POSTGRES_H
#error "src/core must not see PostgreSQL headers"
#endif

#include <cstdint>

#include "layout.hpp"

namespace snowflake {

// node: the node bits as they sit in an id (Layout::node_bits).
inline uint64_t word_pack(const Layout &l, int64_t ms, int64_t node, uint64_t counter) {
    return (static_cast<uint64_t>(l.compose(ms, node, 0)) << 1) | counter;
}

inline uint64_t word_counter(const Layout &l, uint64_t w) {
    return w & ((uint64_t{1} << (l.sequence_bits + 1)) - 1);
}

// The id of the word's millisecond and node with sequence 0.
inline int64_t word_base_id(const Layout &l, uint64_t w) {
    return static_cast<int64_t>((w >> (l.sequence_bits + 1)) << l.sequence_bits);
}

inline int64_t word_ms(const Layout &l, uint64_t w) {
    return static_cast<int64_t>(w >> (l.timestamp_shift() + 1));
}

inline int64_t word_node(const Layout &l, uint64_t w) {
    const int64_t node_mask = ((int64_t{1} << l.timestamp_shift()) - 1) & ~l.max_sequence();
    return word_base_id(l, w) & node_mask;
}

// The id a fetch-and-add that returned `w` took, if it took one.
inline bool word_take(const Layout &l, uint64_t w, int64_t *id) {
    const uint64_t c = word_counter(l, w);
    if (c > static_cast<uint64_t>(l.max_sequence()))
        return false;
    *id = word_base_id(l, w) + static_cast<int64_t>(c);
    return true;
}

// A word whose millisecond `ms`, and every one before, is used up: the next
// id is in a later one.  A mark past the lifetime (the epoch was moved
// earlier) uses up all of it.
inline uint64_t word_used_up(const Layout &l, int64_t ms) {
    if (ms > l.max_timestamp())
        ms = l.max_timestamp();
    return word_pack(l, ms < 0 ? 0 : ms, 0, static_cast<uint64_t>(l.max_sequence()) + 1);
}

// The word after the node identity changed, or a fence before it changes:
// strictly greater than `w`, at millisecond `min_ms` or later, with that
// millisecond used up for every node, so that
//   - an add or swap another process prepared on `w` (or earlier) fails, and
//     that process decides again under the identity in force;
//   - a fetch-and-add on it takes nothing.
// The node bits are all ones and the counter one past the last sequence
// number: every word of the millisecond that can still take an id is below
// it.  A word already that high (the all-ones identity with its millisecond
// used up, or a word retired before in the same millisecond) gets its
// counter bumped by one, as long as the adds that may still land on the
// word -- at most one per process that can take ids with fetch-and-add,
// `max_adders` (0 in compare-and-swap mode) -- cannot carry out of the
// counter; otherwise it moves to the next millisecond, used up.  Only the
// lifetime's last millisecond, used up to the full counter, stays as it is:
// no id can ever be taken from it, so nothing prepared on it can succeed.
inline uint64_t word_after_identity_change(const Layout &l, uint64_t w, int64_t max_adders,
                                           int64_t min_ms = -1) {
    const int64_t all_nodes = ((int64_t{1} << l.timestamp_shift()) - 1) & ~l.max_sequence();
    const uint64_t used_up = static_cast<uint64_t>(l.max_sequence()) + 1;
    const int64_t ms = word_ms(l, w);
    if (min_ms > l.max_timestamp())
        min_ms = l.max_timestamp();
    if (min_ms > ms)
        return word_pack(l, min_ms, all_nodes, used_up);
    const uint64_t retired = word_pack(l, ms, all_nodes, used_up);
    if (retired > w)
        return retired;
    const uint64_t counter_max = (uint64_t{1} << (l.sequence_bits + 1)) - 1;
    const uint64_t adders = max_adders > 0 ? static_cast<uint64_t>(max_adders) : 0;
    if (word_counter(l, w) + 1 + adders <= counter_max)
        return w + 1;
    if (ms < l.max_timestamp())
        return word_pack(l, ms + 1, all_nodes, used_up);
    return w;
}

// Whether up to `max_processes` processes may take ids with fetch-and-add
// without the counter ever carrying out of its field: each adds past the last
// sequence number at most once per millisecond, and the counter has room for
// max_sequence() such adds.
inline bool fetch_add_safe(const Layout &l, int64_t max_processes) {
    return max_processes <= l.max_sequence();
}

}  // namespace snowflake
