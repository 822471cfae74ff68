#include "group_identity.hpp"

namespace snowflake {

int64_t groups_in_layout(const Layout &layout) {
    return int64_t{1} << (layout.datacenter_bits + layout.worker_bits);
}

bool identity_of_group(const Layout &layout, int64_t group, int64_t *datacenter_id,
                       int64_t *worker_id) {
    if (group < 0 || group >= groups_in_layout(layout))
        return false;
    *datacenter_id = group >> layout.worker_bits;
    *worker_id = group & layout.max_worker_id();
    return true;
}

}  // namespace snowflake
