// Index paths from the id bounds that time conditions imply (time_paths.cpp).
#pragma once

namespace sfpg {

// Chains a set_rel_pathlist_hook in front of the current one.
void install_time_paths_hook();

}  // namespace sfpg
