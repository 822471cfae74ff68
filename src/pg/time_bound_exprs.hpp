// Id bounds as expressions of PostgreSQL's built-in functions, for bounds
// that are not constants when the query is planned (relative to now(), a
// date or a timestamp read in the session's time zone, a parameter of a
// generic plan, a column of another table, a range that is not a
// constant): the planner code adds them beside the user's condition
// (time_conditions.cpp, time_support.cpp), and the executor computes them
// once per scan.  They call nothing of the extension's, so they need no
// EXECUTE privilege beyond what the query named, and nothing in them
// depends on the extension's catalog entries.
//
// For the layout's epoch E (Unix ms) and timestamp shift s, and x_ms the
// time as Unix milliseconds (EXTRACT(epoch FROM x) * 1000, exact to the
// microsecond, +-Infinity for the infinities):
//
//   ts(id) >= x   id >= (ceil(x_ms) - E) * 2^s
//   ts(id) >  x   id >= (floor(x_ms) - (E - 1)) * 2^s
//   ts(id) <= x   id <= (floor(x_ms) - (E - 1)) * 2^s - 1
//   ts(id) <  x   id <= (ceil(x_ms) - E) * 2^s - 1
//
// computed in numeric (no overflow), clipped to [0, 2^63 - 1] and cast to
// bigint: they are the bounds of snowflake_min_id_since and its siblings
// wherever those are not NULL, and where they are NULL (no id satisfies the
// condition) a bound that is still implied.  A NULL time gives a bound that
// excludes nothing, as the condition holds for no row anyway.  A date or a
// timestamp is read as a timestamptz in the session's time zone, as
// PostgreSQL's comparison operators read it, clipped to years 1 to 294276 so
// that the conversion cannot fail, in the direction that only weakens the
// bound.  A range gives the bound of its lower end (>=) and of its upper end
// (<=), or none where it has none: weaker than the operator at exclusive
// ends, so the operator is kept beside them.
#pragma once

#include "../core/layout.hpp"
#include "../core/time_bounds.hpp"

#include "pg_planner_includes.hpp"

namespace sfpg {

// The bound of "snowflake_timestamp(id) CMP x" (a bigint expression), x a
// timestamptz, date or timestamp without time zone expression (copied).
Expr *builtin_time_bound(const snowflake::Layout &layout, snowflake::TimeCmp cmp, Node *x);

// The lower (id >= ...) or upper (id <= ...) bound of "id <@ r", r a
// tstzrange expression (copied).
Expr *builtin_range_bound(const snowflake::Layout &layout, bool lower, Node *r);

}  // namespace sfpg
