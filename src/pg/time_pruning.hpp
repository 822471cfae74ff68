// Partition pruning from the id bounds that time conditions imply
// (time_pruning.cpp).
#pragma once

namespace sfpg {

// Chains a get_relation_info_hook (build_simple_rel_hook on PostgreSQL 19)
// and a create_upper_paths_hook in front of the current ones.
void install_time_pruning_hooks();

}  // namespace sfpg
