// Selectivity of "id <@ r" (time_support.cpp).
#pragma once

#include "pg_planner_includes.hpp"

namespace sfpg {

// The estimate of the same bounds written by hand, from the id column's
// statistics; a default when r has no value at plan time.
Selectivity made_within_selectivity(PlannerInfo *root, List *args, int varRelid);

}  // namespace sfpg
