// The planner hook that lets time predicates on snowflake_timestamp(id) use
// the id's index and prune partitions (time_predicates.cpp).
//
// Installed in _PG_init whether or not the library is preloaded.  Loaded on
// demand (no shared_preload_libraries), a backend loads the library at its
// first call of a snowflake function, so the hook rewrites that backend's
// statements planned after it; the statement that loaded it was planned
// before.  Either way the hook changes nothing but the statements that use
// the extension's time functions, in the databases that have the extension.
#pragma once

namespace sfpg {

// snowflake.time_predicates (on): the rewrite is on.
extern bool guc_time_predicates;

// Defines snowflake.time_predicates (PGC_USERSET: any session may turn the
// rewrite off for itself).
void define_time_predicates_setting();

// Chains the hook in front of the current planner_hook.
void install_planner_hook();

}  // namespace sfpg
