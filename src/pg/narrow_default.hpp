// A column default that calls snowflake_nextval() on a column too narrow for
// its ids.
#pragma once

// PostgreSQL's parse-tree node (nodes/nodes.h).
struct Node;

namespace sfpg {

// CREATE TABLE, ALTER TABLE ... ADD COLUMN and ALTER TABLE ... ALTER COLUMN
// ... SET DEFAULT that give a smallint, integer, oid, real, double precision
// or narrow numeric column (or a domain over one) a default calling
// snowflake_nextval(): a WARNING before the statement runs, saying that
// every insert taking the default will fail (or round ids together) and
// what to declare instead.  Any other statement: nothing.
void warn_narrow_snowflake_default(Node *tree);

}  // namespace sfpg
