// Time predicates on snowflake_timestamp(id) and id <@ tstzrange use the
// id's index and prune partitions: the planner-side code of the extension
// (time_predicates.cpp), and its switch, snowflake.time_predicates.
//
// Installed in _PG_init whether or not the library is preloaded.  Loaded on
// demand (no shared_preload_libraries), a backend loads the library at its
// first call of a snowflake function, so the hooks serve that backend's
// statements planned after it; the statement that loaded it was planned
// before.  Either way they add paths and pruning conditions only for the
// extension's time conditions, in the databases that have the extension,
// and change nothing else.
#pragma once

namespace sfpg {

// snowflake.time_predicates (on): the planner-side code is on.
extern bool guc_time_predicates;

// Defines snowflake.time_predicates (PGC_USERSET: any session may turn it
// off for itself).
void define_time_predicates_setting();

// Chains the planner hooks (time_paths.hpp, time_pruning.hpp) in front of
// the current ones.
void install_planner_hooks();

}  // namespace sfpg
