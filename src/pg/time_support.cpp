// The planner support function of the time functions (prosupport), and the
// restriction estimator of the "made within" operator.
//
// snowflake_made_within(id, r), the function of "id <@ r":
//   IndexCondition  "id >= lo AND id <= hi" (or "id < hi + 1") on a btree
//                   or BRIN index of the id, from the index's own operator
//                   family: constants for a constant r, else
//                   the bounds of r's ends in built-in functions, computed
//                   once per scan when that cannot fail (time_safe_values.hpp).  Exact (the operator holds for a
//                   non-null id exactly when they do), so the index answers
//                   the operator and it is not evaluated again;
//   Selectivity     from the id column's statistics (as the operator's
//                   RESTRICT estimator too: the planner asks that one for
//                   operators).
//   The operator itself is never rewritten: where no index answers it, it
//   is evaluated on each row.  Partitions are pruned from the same bounds
//   by the planner hooks (time_pruning.cpp).
// snowflake_min_id_since(ts) and the other bounds of one argument:
//   Simplify        a constant argument becomes the constant id.  These are
//                   STABLE only because they read the server's layout,
//                   which is fixed while the server runs, so the value
//                   computed when planning is the one execution would get.
//
// snowflake.time_predicates = off: no answer but the estimate, which is
// the operator's own.
#include <cstring>

#include "../core/layout.hpp"
#include "../core/time_bounds.hpp"

#include "firewall.hpp"
#include "time_bound_exprs.hpp"
#include "time_catalog.hpp"
#include "time_ids.hpp"
#include "time_predicates.hpp"
#include "time_safe_values.hpp"
#include "time_support.hpp"

namespace sfpg {

namespace {

Const *int8_const(int64 v, bool isnull) {
    return makeConst(INT8OID, -1, InvalidOid, sizeof(int64), Int64GetDatum(v), isnull,
                     FLOAT8PASSBYVAL);
}

Expr *compare(StrategyNumber strategy, Node *x, Expr *bound) {
    return make_opclause(int8_operator(strategy), BOOLOID, false,
                         reinterpret_cast<Expr *>(copy_node(x)), bound, InvalidOid, InvalidOid);
}

// A constant argument of a one-argument bound function, folded.
Node *fold_bound(TimeFn fn, FuncExpr *call) {
    const snowflake::Layout *layout = server_layout_or_null();
    if (!layout || list_length(call->args) != 1 || !IsA(linitial(call->args), Const))
        return nullptr;
    Const *arg = static_cast<Const *>(linitial(call->args));
    if (arg->constisnull)
        return reinterpret_cast<Node *>(int8_const(0, true));
    int64 v = 0;
    bool some;
    if (fn == TimeFn::MinWithin || fn == TimeFn::MaxWithin) {
        int64 lo, hi;
        bool upper_inclusive;
        some = range_ids(*layout, arg->constvalue, &lo, &hi, &upper_inclusive);
        v = fn == TimeFn::MinWithin ? lo : hi;
    } else {
        const snowflake::TimeCmp cmp = fn == TimeFn::MinSince   ? snowflake::TimeCmp::AtOrAfter
                                       : fn == TimeFn::MinAfter ? snowflake::TimeCmp::After
                                       : fn == TimeFn::MaxUntil ? snowflake::TimeCmp::AtOrBefore
                                                                : snowflake::TimeCmp::Before;
        some = time_id_bound(*layout, cmp, DatumGetTimestampTz(arg->constvalue), &v);
    }
    return reinterpret_cast<Node *>(int8_const(some ? v : 0, !some));
}

// An expression we may write twice, or evaluate once per scan instead of
// once per row: no volatile function, no subquery, no set-returning function.
bool duplicable(Node *x) {
    return !contain_volatile_functions(x) && !contain_subplans(x) && !expression_returns_set(x);
}

// id <@ r: index conditions on a btree or BRIN index of id.
List *index_made_within(SupportRequestIndexCondition *req) {
    List *args;
    if (is_opclause(req->node))
        args = reinterpret_cast<OpExpr *>(req->node)->args;
    else if (is_funcclause(req->node))
        args = reinterpret_cast<FuncExpr *>(req->node)->args;
    else
        return NIL;
    // The index holds ids (argument 0); the range is the comparison value.
    if (req->indexarg != 0 || list_length(args) != 2)
        return NIL;
    Node *x = static_cast<Node *>(linitial(args));
    Node *r = static_cast<Node *>(lsecond(args));
    // For an operator the planner checked this already; not for a function.
    if (!is_pseudo_constant_for_index(req->root, r, req->index) || !duplicable(r))
        return NIL;
    // Only access methods whose int8 strategies are btree's, and only when
    // the index's own family has the plain int8 operators there (a family
    // with another order would map the strategies to other operators).
    if (req->index->relam != BTREE_AM_OID && req->index->relam != BRIN_AM_OID)
        return NIL;
    const Oid ge = get_opfamily_member(req->opfamily, INT8OID, INT8OID,
                                       BTGreaterEqualStrategyNumber);
    const Oid le = get_opfamily_member(req->opfamily, INT8OID, INT8OID, BTLessEqualStrategyNumber);
    const Oid lt = get_opfamily_member(req->opfamily, INT8OID, INT8OID, BTLessStrategyNumber);
    if (!OidIsValid(ge) || !OidIsValid(le) || ge != int8_operator(BTGreaterEqualStrategyNumber) ||
        le != int8_operator(BTLessEqualStrategyNumber) ||
        lt != int8_operator(BTLessStrategyNumber) || exprType(r) != TSTZRANGEOID)
        return NIL;
    if (IsA(r, Const)) {
        const snowflake::Layout *layout = server_layout_or_null();
        if (layout == nullptr)
            return NIL;
        int64 l, h;
        bool upper_inclusive;
        if (reinterpret_cast<Const *>(r)->constisnull ||
            !range_ids(*layout, reinterpret_cast<Const *>(r)->constvalue, &l, &h,
                       &upper_inclusive)) {
            // No id at all: "id >= 0 AND id < 0", false for every id.
            req->lossy = false;
            return list_of(compare(BTGreaterEqualStrategyNumber, x,
                                   reinterpret_cast<Expr *>(int8_const(0, false))),
                           compare(BTLessStrategyNumber, x,
                                   reinterpret_cast<Expr *>(int8_const(0, false))));
        }
        // h is the last id of a millisecond, so h + 1 is the first of the
        // next one: "id < h + 1" reads like a partition's upper bound.
        req->lossy = false;
        if (h == PG_INT64_MAX)
            return list_of(compare(BTGreaterEqualStrategyNumber, x,
                                   reinterpret_cast<Expr *>(int8_const(l, false))));
        Expr *lower = compare(BTGreaterEqualStrategyNumber, x,
                              reinterpret_cast<Expr *>(int8_const(l, false)));
        Expr *upper = upper_inclusive ? compare(BTLessEqualStrategyNumber, x,
                                                reinterpret_cast<Expr *>(int8_const(h, false)))
                                      : compare(BTLessStrategyNumber, x,
                                                reinterpret_cast<Expr *>(int8_const(h + 1, false)));
        return list_of(lower, upper);
    }
    // Not a constant: the bounds of r's ends, of built-in functions
    // (time_bound_exprs.hpp), computed once per scan.  Weaker than the
    // operator at exclusive ends and for a range with no id, so the operator
    // is checked on each row the index returns.
    // Only a range computed without an error the operator would not raise
    // (time_safe_values.hpp); a range built by tstzrange(lower, upper) is
    // never built, its ends are read.
    const snowflake::Layout *layout = server_layout_or_null();
    if (layout == nullptr)
        return NIL;
    Node *r_lower, *r_upper;
    Expr *lo, *hi;
    auto is_null_const = [](Node *n) {
        return IsA(n, Const) && reinterpret_cast<Const *>(n)->constisnull;
    };
    if (range_constructor(r, &r_lower, &r_upper)) {
        if (!computable_ahead(req->root, r_lower) || !computable_ahead(req->root, r_upper))
            return NIL;
        // A NULL end: that side is unbounded.
        List *conds = NIL;
        if (!is_null_const(r_lower))
            conds = lappend(conds, compare(BTGreaterEqualStrategyNumber, x,
                                           builtin_time_bound(*layout, snowflake::TimeCmp::AtOrAfter,
                                                              r_lower)));
        if (!is_null_const(r_upper))
            conds = lappend(conds, compare(BTLessEqualStrategyNumber, x,
                                           builtin_time_bound(*layout, snowflake::TimeCmp::AtOrBefore,
                                                              r_upper)));
        req->lossy = true;
        return conds;
    } else if (computable_ahead(req->root, r)) {
        lo = builtin_range_bound(*layout, true, r);
        hi = builtin_range_bound(*layout, false, r);
    } else {
        return NIL;
    }
    req->lossy = true;
    return list_of(compare(BTGreaterEqualStrategyNumber, x, lo),
                   compare(BTLessEqualStrategyNumber, x, hi));
}

}  // namespace

Selectivity made_within_selectivity(PlannerInfo *root, List *args, int varRelid) {
    if (list_length(args) != 2)
        return DEFAULT_RANGE_INEQ_SEL;
    Node *x = static_cast<Node *>(linitial(args));
    // now() and parameters with known values are folded for the estimate.
    Node *r = estimate_expression_value(root, static_cast<Node *>(lsecond(args)));
    const snowflake::Layout *layout = server_layout_or_null();
    if (!layout || !IsA(r, Const) || exprType(r) != TSTZRANGEOID)
        return DEFAULT_RANGE_INEQ_SEL;
    if (reinterpret_cast<Const *>(r)->constisnull)
        return 0.0;
    int64 lo, hi;
    bool upper_inclusive;
    if (!range_ids(*layout, reinterpret_cast<Const *>(r)->constvalue, &lo, &hi, &upper_inclusive))
        return 0.0;
    // What the same bounds written by hand are estimated at.
    List *conds = list_of(
        compare(BTGreaterEqualStrategyNumber, x, reinterpret_cast<Expr *>(int8_const(lo, false))),
        compare(BTLessEqualStrategyNumber, x, reinterpret_cast<Expr *>(int8_const(hi, false))));
    return clauselist_selectivity(root, conds, varRelid, JOIN_INNER, nullptr);
}

}  // namespace sfpg

SNOWFLAKE_ENTRY(snowflake_time_support) {
    Node *raw = reinterpret_cast<Node *>(PG_GETARG_POINTER(0));
    Node *result = nullptr;
    if (IsA(raw, SupportRequestSimplify)) {
        auto *req = reinterpret_cast<SupportRequestSimplify *>(raw);
        const sfpg::TimeFn fn = sfpg::time_function(req->fcall->funcid);
        if (sfpg::guc_time_predicates &&
            (fn == sfpg::TimeFn::MinSince || fn == sfpg::TimeFn::MinAfter ||
             fn == sfpg::TimeFn::MaxUntil || fn == sfpg::TimeFn::MaxBefore ||
             fn == sfpg::TimeFn::MinWithin || fn == sfpg::TimeFn::MaxWithin))
            result = sfpg::fold_bound(fn, req->fcall);
    } else if (IsA(raw, SupportRequestIndexCondition)) {
        auto *req = reinterpret_cast<SupportRequestIndexCondition *>(raw);
        if (sfpg::guc_time_predicates && sfpg::time_function(req->funcid) == sfpg::TimeFn::MadeWithin)
            result = reinterpret_cast<Node *>(sfpg::index_made_within(req));
    } else if (IsA(raw, SupportRequestSelectivity)) {
        auto *req = reinterpret_cast<SupportRequestSelectivity *>(raw);
        if (!req->is_join && sfpg::time_function(req->funcid) == sfpg::TimeFn::MadeWithin) {
            req->selectivity = sfpg::made_within_selectivity(req->root, req->args, req->varRelid);
            result = raw;
        }
    }
    PG_RETURN_POINTER(result);
}

// RESTRICT estimator of "bigint <@ tstzrange":
// (planner info, operator, arguments, varRelid).
SNOWFLAKE_ENTRY(snowflake_made_within_sel) {
    auto *root = reinterpret_cast<PlannerInfo *>(PG_GETARG_POINTER(0));
    List *args = reinterpret_cast<List *>(PG_GETARG_POINTER(2));
    const int varRelid = PG_GETARG_INT32(3);
    Selectivity s = sfpg::made_within_selectivity(root, args, varRelid);
    CLAMP_PROBABILITY(s);
    PG_RETURN_FLOAT8(s);
}
