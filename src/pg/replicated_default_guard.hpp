// Refuses filling the rows of a replicated Citus table with
// snowflake_nextval() once per copy (replicated_default_guard.cpp).
#pragma once

struct AlterTableStmt;

namespace sfpg {

// For the ProcessUtility hook, before an ALTER TABLE runs (and before
// Citus's own processing of it): ERROR if it would fill existing rows of a
// replicated Citus table with snowflake_nextval().
void guard_replicated_default(AlterTableStmt *stmt);

}  // namespace sfpg
