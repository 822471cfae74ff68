// What a condition on an id's time implies about the id itself: the id
// bounds the planner code adds beside the user's condition (index paths,
// time_paths.cpp; partition pruning, time_pruning.cpp).
//
//   snowflake_timestamp(id) >= x   implies   id >= snowflake_min_id_since(x)
//   snowflake_timestamp(id) >  x             id >= snowflake_min_id_after(x)
//   snowflake_timestamp(id) <= x             id <= snowflake_max_id_until(x)
//   snowflake_timestamp(id) <  x             id <= snowflake_max_id_before(x)
//   snowflake_timestamp(id) =  x             both of >= and <=
//   id <@ r                                  id >= (the bound of >= r's lower end)
//                                            and id <= (the bound of <= its upper end)
//
// either way round, x a timestamptz, date or timestamp without time zone
// (taken as PostgreSQL's comparison operators take them, in the session's
// time zone), the IMMUTABLE form with constant, valid layout arguments
// giving the layout.  The values are those of the bound functions, computed
// when planning for a constant, else written with built-in functions only
// (time_bound_exprs.hpp): the plan calls no function of the extension that
// the query did not.
//
// Why it is safe: the bounds are implied, never substituted.  Wherever the
// condition is true the bounds hold (src/core/time_bounds.hpp: for every
// non-negative id and every x they are even equivalent, and a negative id
// makes snowflake_timestamp raise an error, so it never satisfies the
// condition).  The user's condition always stays in the plan, as a filter
// or a recheck, so the rows are by construction the rows without them.
#pragma once

#include "pg_planner_includes.hpp"

namespace sfpg {

// One implied bound: "id >= value" (lower) or "id <= value".
struct IdBound {
    Node *id;     // the id expression, as it stands in the condition (not copied)
    bool lower;   // >= (else <=)
    Expr *value;  // a bigint expression: a Const when folded (a NULL Const:
                  // no id satisfies the condition), else an expression of
                  // built-in functions (time_bound_exprs.hpp)
};

// The bounds on an id of relation `relid` that `clause` implies, appended to
// *out as IdBound *; false when it implies none.  The id expression must
// use Vars of `relid` only, x (or r) none of them: x is evaluated before
// the rows of `relid` are read (once per scan; with Vars of other
// relations, once per outer row of a nested loop).  Neither may contain
// volatile functions, subqueries or set-returning functions.  `fold`: a
// bound that depends only on constants and the server's layout (fixed while
// the server runs) is computed now, as a Const; bounds that depend on the
// session's time zone, on now() or on a parameter are expressions of
// built-in functions (time_bound_exprs.hpp).
bool implied_bounds(PlannerInfo *root, Expr *clause, Index relid, bool fold, List **out);

// "id >= value" or "id <= value" as an expression (the id and the value
// copied).
Expr *bound_clause(const IdBound &b);

// A RestrictInfo of an implied bound's clause, with the user's condition's
// security level and outer-join properties: it may be used exactly where
// the condition it comes from may be.
RestrictInfo *implied_restrictinfo(PlannerInfo *root, Expr *clause, const RestrictInfo *from);

}  // namespace sfpg
