// Unit tests of the Citus group id as node identity (src/core/group_identity.*).
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <utility>

#include "group_identity.hpp"
#include "layouts.hpp"

using snowflake::groups_in_layout;
using snowflake::identity_of_group;
using snowflake_test::make_layout;

TEST(GroupIdentity, DefaultLayout) {
    const auto l = make_layout(5, 5, 12);
    EXPECT_EQ(groups_in_layout(l), 1024);
    int64_t dc = -7, worker = -7;
    ASSERT_TRUE(identity_of_group(l, 0, &dc, &worker));  // the coordinator
    EXPECT_EQ(dc, 0);
    EXPECT_EQ(worker, 0);
    ASSERT_TRUE(identity_of_group(l, 1, &dc, &worker));
    EXPECT_EQ(dc, 0);
    EXPECT_EQ(worker, 1);
    ASSERT_TRUE(identity_of_group(l, 31, &dc, &worker));
    EXPECT_EQ(dc, 0);
    EXPECT_EQ(worker, 31);
    ASSERT_TRUE(identity_of_group(l, 32, &dc, &worker));  // the next datacenter
    EXPECT_EQ(dc, 1);
    EXPECT_EQ(worker, 0);
    ASSERT_TRUE(identity_of_group(l, 1023, &dc, &worker));
    EXPECT_EQ(dc, 31);
    EXPECT_EQ(worker, 31);
}

TEST(GroupIdentity, PastTheNodeBitsThereIsNone) {
    const auto l = make_layout(5, 5, 12);
    int64_t dc = -7, worker = -7;
    EXPECT_FALSE(identity_of_group(l, 1024, &dc, &worker));
    EXPECT_FALSE(identity_of_group(l, -1, &dc, &worker));
    EXPECT_FALSE(identity_of_group(l, INT64_MAX, &dc, &worker));
    EXPECT_EQ(dc, -7);  // untouched
    EXPECT_EQ(worker, -7);
    // No node bits at all: only the coordinator's group.
    const auto none = make_layout(0, 0, 12);
    EXPECT_EQ(groups_in_layout(none), 1);
    EXPECT_TRUE(identity_of_group(none, 0, &dc, &worker));
    EXPECT_FALSE(identity_of_group(none, 1, &dc, &worker));
}

// Distinct groups never share an identity, and each identity fits the
// layout, in every layout's whole range.
TEST(GroupIdentity, DistinctGroupsDistinctIdentities) {
    for (auto [d, w] : {std::pair{5, 5}, std::pair{0, 10}, std::pair{10, 0}, std::pair{3, 7},
                        std::pair{1, 1}}) {
        const auto l = make_layout(d, w, 12);
        std::set<int64_t> node_bits;
        for (int64_t g = 0; g < groups_in_layout(l); g++) {
            int64_t dc, worker;
            ASSERT_TRUE(identity_of_group(l, g, &dc, &worker)) << g;
            ASSERT_GE(dc, 0);
            ASSERT_LE(dc, l.max_datacenter_id());
            ASSERT_GE(worker, 0);
            ASSERT_LE(worker, l.max_worker_id());
            ASSERT_TRUE(node_bits.insert(l.node_bits(dc, worker)).second) << g;
        }
        EXPECT_EQ(static_cast<int64_t>(node_bits.size()), groups_in_layout(l));
    }
}
