// Refuses filling the rows of a replicated Citus table with
// snowflake_nextval() once per copy (replicated_default_guard.cpp).
#pragma once

namespace sfpg {

// Chains the ProcessUtility hook (call while preloading).
void install_replicated_default_guard();

}  // namespace sfpg
