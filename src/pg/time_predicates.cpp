// snowflake.time_predicates, and the planner hooks it governs.
//
// The user's conditions are never changed.  Where a condition on an id's
// time implies bounds on the id (time_conditions.hpp), the planner is
// offered more: index paths from those bounds (time_paths.cpp), and the
// partitions that cannot hold a matching row (time_pruning.cpp); the
// operator's support function does the same for id <@ r
// (time_support.cpp).  Each hook first checks the setting, knows our
// functions by the OIDs in the query (time_catalog.hpp: no catalog beyond
// the syscache entries the planner read), and chains to the hook installed
// before it, whichever library that is.
#include "time_paths.hpp"
#include "time_predicates.hpp"
#include "time_pruning.hpp"

#include "pg_includes.hpp"

namespace sfpg {

bool guc_time_predicates = true;

void define_time_predicates_setting() {
    DefineCustomBoolVariable(
        "snowflake.time_predicates",
        "Lets the planner answer conditions on the time of snowflake ids from the id's index and "
        "partitions.",
        "For snowflake_timestamp(id) >= x (and >, <, <=, =, BETWEEN) and id <@ r, the planner "
        "is offered index paths and partition pruning from the id bounds the condition "
        "implies; the condition itself is kept.",
        &guc_time_predicates, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
}

void install_planner_hooks() {
    install_time_paths_hook();
    install_time_pruning_hooks();
}

}  // namespace sfpg
