// snowflake's ProcessUtility hook (utility_hook.cpp).
#pragma once

namespace sfpg {

// Chains the hook (call while preloading) where Citus is preloaded or
// snowflake.citus_database is set; returns whether it did.
bool install_utility_hook();

}  // namespace sfpg
