// SET of a snowflake setting that only the configuration changes.
#pragma once

// PostgreSQL's parse-tree node (nodes/nodes.h).
struct Node;

namespace sfpg {

// SET, SET LOCAL, RESET, and ALTER ROLE / ALTER DATABASE ... SET of a
// snowflake setting that only postgresql.conf and ALTER SYSTEM change:
// PostgreSQL refuses them with "cannot be changed now" and nothing more.
// Refused here first, with PostgreSQL's own message and SQLSTATE and a HINT
// that says where the setting is set (and, for SET LOCAL outside a
// transaction block, PostgreSQL's warning first, as it gives it).  Any other
// statement: nothing.
void refuse_session_setting(Node *tree, bool top_level);

}  // namespace sfpg
