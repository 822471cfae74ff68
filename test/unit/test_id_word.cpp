// Unit tests of the id word (src/core/id_word.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "id_word.hpp"
#include "layout.hpp"
#include "layouts.hpp"

using snowflake_test::make_layout;
using snowflake::Layout;

namespace {

const Layout kLayouts[] = {make_layout(5, 5, 12), make_layout(3, 3, 16), make_layout(0, 0, 1),
                           make_layout(0, 0, 28), make_layout(13, 14, 1),
                           make_layout(1, 10, 17)};

}  // namespace

TEST(IdWord, FieldsRoundTripAtTheEdgesOfEveryLayout) {
    for (const Layout &l : kLayouts) {
        const int64_t nodes[] = {0, l.node_bits(l.max_datacenter_id(), l.max_worker_id()),
                                 l.node_bits(0, l.max_worker_id())};
        const int64_t mss[] = {0, 1, 5000000, l.max_timestamp()};
        const uint64_t counters[] = {0, 1, static_cast<uint64_t>(l.max_sequence()),
                                     static_cast<uint64_t>(l.max_sequence()) + 1,
                                     2 * static_cast<uint64_t>(l.max_sequence()) + 1};
        for (int64_t ms : mss)
            for (int64_t node : nodes)
                for (uint64_t c : counters) {
                    const uint64_t w = snowflake::word_pack(l, ms, node, c);
                    ASSERT_EQ(snowflake::word_ms(l, w), ms);
                    ASSERT_EQ(snowflake::word_node(l, w), node);
                    ASSERT_EQ(snowflake::word_counter(l, w), c);
                    ASSERT_EQ(snowflake::word_base_id(l, w), l.compose(ms, node, 0));
                }
    }
}

TEST(IdWord, TheLastWordOfTheLifetimeFitsIn64Bits) {
    const Layout l;
    const int64_t node = l.node_bits(31, 31);
    const uint64_t w = snowflake::word_pack(l, l.max_timestamp(), node,
                                            2 * static_cast<uint64_t>(l.max_sequence()) + 1);
    EXPECT_EQ(w, UINT64_MAX);
    int64_t id = 0;
    EXPECT_FALSE(snowflake::word_take(l, w, &id));
    EXPECT_TRUE(snowflake::word_take(l, w - 4096, &id));
    EXPECT_EQ(id, INT64_MAX);
}

TEST(IdWord, TakeGivesTheIdOfTheCounterUntilTheMillisecondIsUsedUp) {
    const Layout l;
    const int64_t node = l.node_bits(17, 25);
    int64_t id = -1;
    ASSERT_TRUE(snowflake::word_take(l, snowflake::word_pack(l, 5, node, 0), &id));
    EXPECT_EQ(id, l.compose(5, node, 0));
    ASSERT_TRUE(snowflake::word_take(l, snowflake::word_pack(l, 5, node, 4095), &id));
    EXPECT_EQ(id, l.compose(5, node, 4095));
    EXPECT_FALSE(snowflake::word_take(l, snowflake::word_pack(l, 5, node, 4096), &id));
    EXPECT_FALSE(snowflake::word_take(l, snowflake::word_pack(l, 5, node, 8191), &id));
    EXPECT_FALSE(snowflake::word_take(l, snowflake::word_used_up(l, 5), &id));
}

TEST(IdWord, WordsOrderLikeTheIdsTakenFromThem) {
    std::mt19937_64 rng(7);
    for (const Layout &l : kLayouts) {
        for (int i = 0; i < 20000; i++) {
            const int64_t ms_a = static_cast<int64_t>(rng() % 1000), ms_b = ms_a + (rng() % 3);
            const int64_t na = l.node_bits(rng() % (l.max_datacenter_id() + 1),
                                           rng() % (l.max_worker_id() + 1));
            const int64_t nb = l.node_bits(rng() % (l.max_datacenter_id() + 1),
                                           rng() % (l.max_worker_id() + 1));
            const uint64_t ca = rng() % (l.max_sequence() + 1), cb = rng() % (l.max_sequence() + 1);
            const uint64_t wa = snowflake::word_pack(l, ms_a, na, ca);
            const uint64_t wb = snowflake::word_pack(l, ms_b, nb, cb);
            int64_t ia, ib;
            ASSERT_TRUE(snowflake::word_take(l, wa, &ia));
            ASSERT_TRUE(snowflake::word_take(l, wb, &ib));
            ASSERT_EQ(wa < wb, ia < ib);
            ASSERT_EQ(wa == wb, ia == ib);
        }
    }
}

// The reason for the extra bit: once a millisecond is used up, any number of
// failing adds up to max_sequence() (one per process) leaves the node and the
// millisecond alone.
TEST(IdWord, FailingAddsUpToTheSafeBoundNeverCarryIntoTheNodeOrTimestamp) {
    for (const Layout &l : kLayouts) {
        const int64_t node = l.node_bits(l.max_datacenter_id(), l.max_worker_id());
        const uint64_t start = snowflake::word_pack(l, 1234, node, 0);
        const uint64_t processes = static_cast<uint64_t>(l.max_sequence());
        ASSERT_TRUE(snowflake::fetch_add_safe(l, static_cast<int64_t>(processes)));
        ASSERT_FALSE(snowflake::fetch_add_safe(l, static_cast<int64_t>(processes) + 1));
        // Every sequence number taken, then one failing add per process.
        const uint64_t end = start + static_cast<uint64_t>(l.max_sequence()) + 1 + processes;
        EXPECT_EQ(snowflake::word_ms(l, end), 1234);
        EXPECT_EQ(snowflake::word_node(l, end), node);
        int64_t id;
        EXPECT_FALSE(snowflake::word_take(l, end, &id));
        // One more would carry: that is what fetch_add_safe rules out.
        EXPECT_FALSE(snowflake::word_ms(l, end + 1) == 1234 &&
                     snowflake::word_node(l, end + 1) == node);
    }
}

TEST(IdWord, FetchAddIsSafeForTheDefaultLayoutUpTo4095Processes) {
    const Layout l;
    EXPECT_TRUE(snowflake::fetch_add_safe(l, 4095));
    EXPECT_FALSE(snowflake::fetch_add_safe(l, 4096));
    EXPECT_FALSE(snowflake::fetch_add_safe(make_layout(5, 5, 8), 300));
}

TEST(IdWord, UsedUpWordBeforeAnyIdHoldsMillisecondZero) {
    const Layout l;
    EXPECT_EQ(snowflake::word_ms(l, snowflake::word_used_up(l, -1)), 0);
    EXPECT_EQ(snowflake::word_ms(l, snowflake::word_used_up(l, 77)), 77);
    EXPECT_GT(snowflake::word_counter(l, snowflake::word_used_up(l, 77)),
              static_cast<uint64_t>(l.max_sequence()));
}

TEST(IdWord, AMarkPastTheLifetimeUsesUpAllOfIt) {
    // The epoch moved earlier can put the old mark past the new lifetime:
    // the word cannot hold that millisecond, and no id is left anyway.
    const Layout l;
    const uint64_t w = snowflake::word_used_up(l, l.max_timestamp() + 500);
    EXPECT_EQ(snowflake::word_ms(l, w), l.max_timestamp());
    int64_t id;
    EXPECT_FALSE(snowflake::word_take(l, w, &id));
}
