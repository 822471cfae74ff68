#include "id_path.hpp"

namespace snowflake {

FastDecision decide_fast(uint64_t w, const FastView &v, const Layout &l, int64_t want,
                         int64_t first_seq) {
    const FastDecision slow{FastStep::Slow, 0, 0, 0, 0};
    if (v.node < 0 || v.now_ms < 0)
        return slow;
    if (want < 1)
        want = 1;
    const int64_t ms = word_ms(l, w);
    const int64_t max_seq = l.max_sequence();
    if (v.now_ms == ms) {
        const uint64_t counter = word_counter(l, w);
        // Another node's millisecond (the identity changed) is used up for
        // this one: its ids there could sort below ids already issued.
        if (word_node(l, w) != v.node || counter > static_cast<uint64_t>(max_seq))
            return FastDecision{FastStep::WaitNextMs, 0, 0, 0, ms + 1};
        const int64_t seq = static_cast<int64_t>(counter);
        const int64_t n = want < max_seq - seq + 1 ? want : max_seq - seq + 1;
        return FastDecision{FastStep::Take, w + static_cast<uint64_t>(n),
                            word_base_id(l, w) + seq, n, 0};
    }
    // The clock behind the word (a step back, or borrowing) needs the
    // policies; past the mark or the lifetime needs the slow path too.
    if (v.now_ms < ms || v.now_ms > v.reserved_ms || v.now_ms > l.max_timestamp())
        return slow;
    const int64_t n = want < max_seq - first_seq + 1 ? want : max_seq - first_seq + 1;
    return FastDecision{FastStep::Move,
                        word_pack(l, v.now_ms, v.node, static_cast<uint64_t>(first_seq + n)),
                        l.compose(v.now_ms, v.node, first_seq), n, 0};
}

}  // namespace snowflake
