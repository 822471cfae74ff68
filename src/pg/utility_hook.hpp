// snowflake's ProcessUtility hook (utility_hook.cpp).
#pragma once

namespace sfpg {

// Chains the hook (call while preloading); its Citus checks apply where
// Citus is preloaded or snowflake.citus_database is set.
void install_utility_hook();

}  // namespace sfpg
