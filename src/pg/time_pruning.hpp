// Partition pruning from the id bounds that time conditions imply
// (time_pruning.cpp).
#pragma once

namespace sfpg {

// Chains the hook that sees each relation when the planner has built it
// (get_relation_info_hook on PostgreSQL 15 to 18, build_simple_rel_hook on
// 19) and a create_upper_paths_hook in front of the current ones.
void install_time_pruning_hooks();

}  // namespace sfpg
