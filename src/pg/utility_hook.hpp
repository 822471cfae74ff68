// snowflake's ProcessUtility hook (utility_hook.cpp).
#pragma once

namespace sfpg {

// Chains the hook (call while preloading).
void install_utility_hook();

}  // namespace sfpg
