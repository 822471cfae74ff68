#include "../core/layout.hpp"
#include "../core/time_bounds.hpp"

#include "layout_args.hpp"
#include "time_bound_exprs.hpp"
#include "time_catalog.hpp"
#include "time_conditions.hpp"
#include "time_ids.hpp"
#include "time_safe_values.hpp"

namespace sfpg {

namespace {

using snowflake::TimeCmp;

bool has_agg_or_window(Node *node, void *) {
    if (node == nullptr)
        return false;
    if (IsA(node, Aggref) || IsA(node, GroupingFunc) || IsA(node, WindowFunc))
        return true;
    return expression_tree_walker(node, SF_WALKER(has_agg_or_window), nullptr);
}

// An expression we may evaluate once per scan instead of once per row, or
// evaluate a second time beside the condition.
bool movable(Node *x) {
    return !contain_volatile_functions(x) && !contain_subplans(x) && !expression_returns_set(x) &&
           !has_agg_or_window(x, nullptr);
}

bool has_placeholder(Node *node, void *) {
    if (node == nullptr)
        return false;
    if (IsA(node, PlaceHolderVar))
        return true;
    return expression_tree_walker(node, SF_WALKER(has_placeholder), nullptr);
}

// The id side: Vars of `relid` and nothing else (no placeholder, no outer
// Var), so that an index or the partition key can match it.
bool id_of(PlannerInfo *root, Node *id, Index relid) {
    if (exprType(id) != INT8OID || !movable(id) || has_placeholder(id, nullptr))
        return false;
    Relids varnos = pull_varnos(root, id);
    return bms_membership(varnos) == BMS_SINGLETON &&
           bms_is_member(static_cast<int>(relid), varnos);
}

// The other side: no Var of `relid`, and computed once per scan without an
// error the condition would not raise (time_safe_values.hpp).
bool value_for(PlannerInfo *root, Node *x, Index relid) {
    return movable(x) && !bms_is_member(static_cast<int>(relid), pull_varnos(root, x)) &&
           computable_ahead(root, x);
}

// A snowflake_timestamp call whose bounds we can write: the id argument, and
// for the IMMUTABLE form the layout arguments (constants of a valid layout,
// so that the bound functions cannot raise an error the call would not).
struct TimestampCall {
    Node *id;
    List *layout_args;         // NIL for the server's layout
    snowflake::Layout layout;  // the layout, when layout_args are given
};

bool timestamp_call(Node *node, TimestampCall *out) {
    if (!IsA(node, FuncExpr))
        return false;
    auto *f = reinterpret_cast<FuncExpr *>(node);
    const int nargs = list_length(f->args);
    if (nargs != 1 && nargs != 5)
        return false;
    const TimeFn fn = time_function(f->funcid);
    if (fn == TimeFn::Timestamp && nargs == 1) {
        out->id = static_cast<Node *>(linitial(f->args));
        out->layout_args = NIL;
        return true;
    }
    if (fn != TimeFn::TimestampLayout || nargs != 5)
        return false;
    Const *c[4];
    for (int i = 0; i < 4; i++) {
        Node *a = static_cast<Node *>(list_nth(f->args, i + 1));
        if (!IsA(a, Const) || reinterpret_cast<Const *>(a)->constisnull)
            return false;
        c[i] = reinterpret_cast<Const *>(a);
    }
    snowflake::Layout l;
    l.epoch_ms = DatumGetInt64(c[0]->constvalue);
    l.datacenter_bits = DatumGetInt32(c[1]->constvalue);
    l.worker_bits = DatumGetInt32(c[2]->constvalue);
    l.sequence_bits = DatumGetInt32(c[3]->constvalue);
    if (l.epoch_ms < 0 || l.epoch_ms > kMaxEpochArgMs ||
        snowflake::validate_widths(l.datacenter_bits, l.worker_bits, l.sequence_bits) !=
            snowflake::LayoutError::None)
        return false;
    out->id = static_cast<Node *>(linitial(f->args));
    out->layout_args = list_copy_tail(f->args, 1);
    out->layout = l;
    return true;
}

TimeCmp commuted(TimeCmp cmp) {
    switch (cmp) {
    case TimeCmp::AtOrAfter:
        return TimeCmp::AtOrBefore;
    case TimeCmp::After:
        return TimeCmp::Before;
    case TimeCmp::AtOrBefore:
        return TimeCmp::AtOrAfter;
    case TimeCmp::Before:
        return TimeCmp::After;
    }
    return cmp;
}

bool is_lower(TimeCmp cmp) { return cmp == TimeCmp::AtOrAfter || cmp == TimeCmp::After; }

// The comparison a function implements, read left to right, for a
// timestamptz against a timestamptz, a date or a timestamp without time zone
// (either way round).  false: not one of them.
bool comparison_of(RegProcedure fn, TimeCmp *cmp, bool *equal) {
    static const struct {
        RegProcedure fn;
        int kind;  // 0 >=, 1 >, 2 <=, 3 <, 4 =
    } known[] = {
        {F_TIMESTAMPTZ_GE, 0},           {F_TIMESTAMPTZ_GT, 1},
        {F_TIMESTAMPTZ_LE, 2},           {F_TIMESTAMPTZ_LT, 3},
        {F_TIMESTAMPTZ_EQ, 4},           {F_TIMESTAMPTZ_GE_DATE, 0},
        {F_TIMESTAMPTZ_GT_DATE, 1},      {F_TIMESTAMPTZ_LE_DATE, 2},
        {F_TIMESTAMPTZ_LT_DATE, 3},      {F_TIMESTAMPTZ_EQ_DATE, 4},
        {F_DATE_GE_TIMESTAMPTZ, 0},      {F_DATE_GT_TIMESTAMPTZ, 1},
        {F_DATE_LE_TIMESTAMPTZ, 2},      {F_DATE_LT_TIMESTAMPTZ, 3},
        {F_DATE_EQ_TIMESTAMPTZ, 4},      {F_TIMESTAMPTZ_GE_TIMESTAMP, 0},
        {F_TIMESTAMPTZ_GT_TIMESTAMP, 1}, {F_TIMESTAMPTZ_LE_TIMESTAMP, 2},
        {F_TIMESTAMPTZ_LT_TIMESTAMP, 3}, {F_TIMESTAMPTZ_EQ_TIMESTAMP, 4},
        {F_TIMESTAMP_GE_TIMESTAMPTZ, 0}, {F_TIMESTAMP_GT_TIMESTAMPTZ, 1},
        {F_TIMESTAMP_LE_TIMESTAMPTZ, 2}, {F_TIMESTAMP_LT_TIMESTAMPTZ, 3},
        {F_TIMESTAMP_EQ_TIMESTAMPTZ, 4}};
    static const TimeCmp kinds[] = {TimeCmp::AtOrAfter, TimeCmp::After, TimeCmp::AtOrBefore,
                                    TimeCmp::Before, TimeCmp::AtOrAfter};
    for (const auto &k : known)
        if (k.fn == fn) {
            *cmp = kinds[k.kind];
            *equal = k.kind == 4;
            return true;
        }
    return false;
}

// Whether "ts(id) CMP x" has bounds for the type of x: a timestamptz, or a
// date or timestamp without time zone against the server's layout (not
// against the IMMUTABLE form: comparing them depends on the session's time
// zone, which that form does not read).
bool bound_type_ok(const TimestampCall &call, Oid xtype) {
    if (xtype == TIMESTAMPTZOID)
        return true;
    return call.layout_args == NIL && (xtype == DATEOID || xtype == TIMESTAMPOID);
}

Const *int8_const(int64 v, bool isnull) {
    return makeConst(INT8OID, -1, InvalidOid, sizeof(int64), Int64GetDatum(isnull ? 0 : v), isnull,
                     FLOAT8PASSBYVAL);
}

IdBound *new_bound(Node *id, bool lower, Expr *value) {
    auto *b = static_cast<IdBound *>(palloc(sizeof(IdBound)));
    b->id = id;
    b->lower = lower;
    b->value = value;
    return b;
}

// The value of the bound of "ts(id) CMP x": folded when x is a constant
// timestamptz (the layout is known without the session: the server's,
// fixed while it runs, or constant arguments); else an expression of
// built-in functions (time_bound_exprs.hpp), computed once per scan.
Expr *bound_value(const TimestampCall &call, TimeCmp cmp, Node *x, bool fold) {
    const snowflake::Layout &layout = call.layout_args != NIL ? call.layout : *server_layout_or_null();
    if (fold && IsA(x, Const) && exprType(x) == TIMESTAMPTZOID) {
        const Const *c = reinterpret_cast<Const *>(x);
        int64 v = 0;
        const bool some =
            !c->constisnull && time_id_bound(layout, cmp, DatumGetTimestampTz(c->constvalue), &v);
        return reinterpret_cast<Expr *>(int8_const(v, !some));
    }
    return builtin_time_bound(layout, cmp, x);
}

// The bound of one end of tstzrange(lower, upper): folded when a constant
// (NULL: that side is unbounded), else an expression.
Expr *end_bound(const snowflake::Layout &layout, TimeCmp cmp, Node *end, bool fold) {
    if (fold && IsA(end, Const)) {
        const Const *c = reinterpret_cast<Const *>(end);
        int64 v = 0;
        if (c->constisnull)
            v = cmp == TimeCmp::AtOrAfter ? 0 : PG_INT64_MAX;
        else if (!time_id_bound(layout, cmp, DatumGetTimestampTz(c->constvalue), &v))
            return reinterpret_cast<Expr *>(int8_const(0, true));
        return reinterpret_cast<Expr *>(int8_const(v, false));
    }
    return builtin_time_bound(layout, cmp, end);
}

// "ts(id) CMP x", either way round.
bool comparison_bounds(PlannerInfo *root, OpExpr *op, Index relid,
                       bool fold, List **out) {
    if (op->opretset || list_length(op->args) != 2)
        return false;
    TimeCmp cmp;
    bool equal;
    set_opfuncid(op);
    if (!comparison_of(op->opfuncid, &cmp, &equal))
        return false;
    TimestampCall call;
    Node *x;
    if (timestamp_call(static_cast<Node *>(linitial(op->args)), &call)) {
        x = static_cast<Node *>(lsecond(op->args));
    } else if (timestamp_call(static_cast<Node *>(lsecond(op->args)), &call)) {
        x = static_cast<Node *>(linitial(op->args));
        cmp = commuted(cmp);
    } else {
        return false;
    }
    // The server's layout must be known, or the bound functions would raise
    // the error the condition raises only when a row is read.
    if (call.layout_args == NIL && server_layout_or_null() == nullptr)
        return false;
    if (!id_of(root, call.id, relid) || !value_for(root, x, relid) ||
        !bound_type_ok(call, exprType(x)))
        return false;
    if (equal) {
        *out = lappend(*out, new_bound(call.id, true,
                                       bound_value(call, TimeCmp::AtOrAfter, x, fold)));
        *out = lappend(*out, new_bound(call.id, false,
                                       bound_value(call, TimeCmp::AtOrBefore, x, fold)));
    } else {
        *out = lappend(*out,
                       new_bound(call.id, is_lower(cmp), bound_value(call, cmp, x, fold)));
    }
    return true;
}

// "id <@ r", as the operator or as a call of its function.
bool made_within_bounds(PlannerInfo *root, Expr *clause, Index relid,
                        bool fold, List **out) {
    List *args;
    if (IsA(clause, OpExpr)) {
        auto *op = reinterpret_cast<OpExpr *>(clause);
        set_opfuncid(op);
        if (list_length(op->args) != 2 || time_function(op->opfuncid) != TimeFn::MadeWithin)
            return false;
        args = op->args;
    } else if (IsA(clause, FuncExpr) &&
               list_length(reinterpret_cast<FuncExpr *>(clause)->args) == 2 &&
               time_function(reinterpret_cast<FuncExpr *>(clause)->funcid) == TimeFn::MadeWithin) {
        args = reinterpret_cast<FuncExpr *>(clause)->args;
    } else {
        return false;
    }
    const snowflake::Layout *layout = server_layout_or_null();
    if (list_length(args) != 2 || layout == nullptr)
        return false;
    Node *id = static_cast<Node *>(linitial(args));
    Node *r = static_cast<Node *>(lsecond(args));
    if (exprType(r) != TSTZRANGEOID || !id_of(root, id, relid))
        return false;
    Node *r_lower, *r_upper;
    const bool by_ends = !IsA(r, Const) && range_constructor(r, &r_lower, &r_upper);
    if (by_ends ? !value_for(root, r_lower, relid) || !value_for(root, r_upper, relid)
                : !value_for(root, r, relid))
        return false;
    Expr *lo, *hi;
    if (by_ends) {
        // Each end as "ts(id) >= lower" and "ts(id) <= upper": the range is
        // never built (time_safe_values.hpp).
        lo = end_bound(*layout, TimeCmp::AtOrAfter, r_lower, fold);
        hi = end_bound(*layout, TimeCmp::AtOrBefore, r_upper, fold);
    } else if (fold && IsA(r, Const)) {
        const Const *c = reinterpret_cast<Const *>(r);
        int64 l = 0, h = 0;
        bool upper_inclusive;
        const bool some =
            !c->constisnull && range_ids(*layout, c->constvalue, &l, &h, &upper_inclusive);
        lo = reinterpret_cast<Expr *>(int8_const(l, !some));
        hi = reinterpret_cast<Expr *>(int8_const(h, !some));
    } else {
        lo = builtin_range_bound(*layout, true, r);
        hi = builtin_range_bound(*layout, false, r);
    }
    *out = lappend(*out, new_bound(id, true, lo));
    *out = lappend(*out, new_bound(id, false, hi));
    return true;
}

}  // namespace

bool implied_bounds(PlannerInfo *root, Expr *clause, Index relid, bool fold, List **out) {
    if (clause == nullptr)
        return false;
    if (IsA(clause, OpExpr) &&
        comparison_bounds(root, reinterpret_cast<OpExpr *>(clause), relid, fold, out))
        return true;
    return made_within_bounds(root, clause, relid, fold, out);
}

Expr *bound_clause(const IdBound &b) {
    return make_opclause(int8_operator(b.lower ? BTGreaterEqualStrategyNumber
                                               : BTLessEqualStrategyNumber),
                         BOOLOID, false,
                         reinterpret_cast<Expr *>(copy_node(b.id)),
                         reinterpret_cast<Expr *>(copy_node(b.value)), InvalidOid, InvalidOid);
}

RestrictInfo *implied_restrictinfo(PlannerInfo *root, Expr *clause, const RestrictInfo *from) {
#if PG_VERSION_NUM >= 160000
    return make_restrictinfo(root, clause, from->is_pushed_down, from->has_clone, from->is_clone,
                             false, from->security_level, from->required_relids,
                             from->incompatible_relids, from->outer_relids);
#else
    return make_restrictinfo(root, clause, from->is_pushed_down, from->outerjoin_delayed, false,
                             from->security_level, from->required_relids, from->outer_relids,
                             from->nullable_relids);
#endif
}

}  // namespace sfpg
