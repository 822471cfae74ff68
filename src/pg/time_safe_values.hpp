// Which time values the planner code may compute before any row is read.
//
// The bounds a time condition implies (time_conditions.hpp) are computed
// once per scan: when the executor starts, for partition pruning, or when an
// index scan starts.  The condition itself computes its time value only when
// a row is compared with it, and a query whose other conditions let no row
// through never computes it.  So a value that can raise an error --
// '2026-01-05 25:00'::timestamptz read from a subquery, a range whose lower
// end is above its upper end, an initplan that divides by zero -- would fail
// a statement with the bounds that succeeds without them.  The bounds are
// only added for values that cannot fail:
//
//   * constants, parameters of a generic plan, values of an outer query or
//     of the outer side of a join (fetched, not computed); not the output of
//     an initplan (its subquery runs when the value is first read);
//   * the current time (now(), CURRENT_TIMESTAMP, CURRENT_DATE, ...), moved
//     by constant intervals or days of at most 300 years each, at most four
//     times, and truncated by date_trunc to a constant unit: never outside
//     the range of a timestamp;
//   * a text constant cast to timestamptz, timestamp or date that reads
//     without an error in the session's settings when the query is planned.
//     (A generic plan run after DateStyle changed so that the text no longer
//     reads is the one case where the scan's start raises the error rather
//     than the first row.)
//
// Anything else gives no bound: the query is planned as without the library.
#pragma once

#include "pg_planner_includes.hpp"

namespace sfpg {

// Whether x can be computed once per scan without an error (a constant can).
bool computable_ahead(PlannerInfo *root, Node *x);

// tstzrange(lower, upper [, bounds]): its two ends (not copied).  The bounds
// are read from the ends alone, inclusive, so that the range is never built
// (building it fails when lower > upper, and a condition never true then
// may have any bounds).
bool range_constructor(Node *r, Node **lower, Node **upper);

}  // namespace sfpg
