// Time predicates written the natural way use the id's index: a planner hook
// rewrites
//
//   snowflake_timestamp(id) >= x   into   id >= snowflake_min_id_since(x)
//   snowflake_timestamp(id) >  x          id >= snowflake_min_id_after(x)
//   snowflake_timestamp(id) <= x          id >= 0 AND id <= snowflake_max_id_until(x)
//   snowflake_timestamp(id) <  x          id >= 0 AND id <= snowflake_max_id_before(x)
//   snowflake_timestamp(id) =  x          id >= ..._since(x) AND id <= ..._until(x)
//
// x a timestamptz, or a date or timestamp without time zone, which the bound
// functions take as PostgreSQL's comparison operators do (in the session's
// time zone, computed when the statement runs)
// (BETWEEN is two of these; the IMMUTABLE form snowflake_timestamp(id,
// epoch_ms, datacenter_bits, worker_bits, sequence_bits) the same with the
// layout passed on to the bound functions).  For a constant x the bound is
// folded into a constant when planning (time_support.cpp), so partitions are
// pruned at plan time; otherwise (now(), a parameter) the bound is computed
// once per scan, as an index condition or when the executor prunes
// partitions.
//
// Why it is safe: each rewrite is an equivalence, not an approximation.  The
// bound functions are exact (src/core/time_bounds.hpp): for every
// non-negative id and every x, infinities included, the two sides hold for
// the same ids, and both are NULL when id or x is NULL.  Only top-level AND
// conjuncts of WHERE and JOIN ... ON are rewritten, where NULL and false
// mean the same.  What changes is only that an ERROR the original would
// raise for an invalid (negative) id is not raised, which PostgreSQL's own
// index conditions do too: a row outside the bounds is never evaluated (an
// upper bound comes with "id >= 0", so no negative id is inside them).
// Only expressions without volatile functions, subqueries, set-returning
// functions and aggregates are touched, since x (and the id) may then be
// evaluated once per scan instead of once per row, or twice for "=".
//
// The rewrite replaces the condition instead of adding the bounds beside it:
// kept beside it, the planner would multiply the two estimates as if they
// were independent (a one-day window would be estimated at 0.005 of its
// size), and every row would pay for both.
//
// No work for other queries: the hook first checks a per-backend cache of our
// function OIDs, which is empty in a database without the extension (or
// with a version before 1.4); the cache is dropped whenever pg_proc changes
// (CREATE, ALTER, DROP EXTENSION among others), through a syscache
// invalidation callback.  It chains to the planner hook installed before it,
// whichever library that is, and is installed whether or not the library is
// preloaded (see time_predicates.hpp).  snowflake.time_predicates = off
// turns it off.
#include "../core/layout.hpp"
#include "../core/time_bounds.hpp"

#include "../core/layout.hpp"

#include "firewall.hpp"
#include "layout_args.hpp"
#include "time_ids.hpp"
#include "time_predicates.hpp"

namespace sfpg {

bool guc_time_predicates = true;

namespace {

planner_hook_type prev_planner_hook = nullptr;

using snowflake::TimeCmp;

constexpr int kCmps = 4;  // TimeCmp values, as array indexes

// Our functions in this database, found by signature in the extension's
// schema and checked by their C symbol.
struct Catalog {
    bool valid;  // filled since the last invalidation
    bool ready;  // the extension, 1.4 or later, is in this database
    Oid ts;      // snowflake_timestamp(bigint)
    Oid ts_layout;             // snowflake_timestamp(bigint, bigint, int, int, int)
    Oid bound[kCmps];          // snowflake_min_id_since(timestamptz), ... by TimeCmp
    Oid bound_layout[kCmps];   // the same with the layout arguments
    Oid bound_date[kCmps];     // ... (date)
    Oid bound_timestamp[kCmps];  // ... (timestamp without time zone)
    Oid int8_ge, int8_le;      // the plain int8 comparisons
};
Catalog catalog;
bool callback_registered = false;
// Invalidations seen: a fill that an invalidation overtook (catalog reads can
// process invalidation messages) is not marked valid.
uint64 invalidations = 0;

void drop_catalog(Datum, int, uint32) {
    catalog.valid = false;
    ++invalidations;
}

const char *const kBoundNames[kCmps] = {"snowflake_min_id_since", "snowflake_min_id_after",
                                        "snowflake_max_id_until", "snowflake_max_id_before"};
const char *const kBoundLayoutSymbols[kCmps] = {
    "snowflake_min_id_since_with_layout", "snowflake_min_id_after_with_layout",
    "snowflake_max_id_until_with_layout", "snowflake_max_id_before_with_layout"};
const char *const kBoundDateSymbols[kCmps] = {
    "snowflake_min_id_since_date", "snowflake_min_id_after_date", "snowflake_max_id_until_date",
    "snowflake_max_id_before_date"};
const char *const kBoundTimestampSymbols[kCmps] = {
    "snowflake_min_id_since_timestamp", "snowflake_min_id_after_timestamp",
    "snowflake_max_id_until_timestamp", "snowflake_max_id_before_timestamp"};

Oid function_in(Oid nsp, const char *name, const Oid *argtypes, int nargs, const char *symbol) {
    oidvector *args = buildoidvector(argtypes, nargs);
    const Oid fn = GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid, CStringGetDatum(name),
                                   PointerGetDatum(args), ObjectIdGetDatum(nsp));
    return OidIsValid(fn) && is_c_function(fn, symbol) ? fn : InvalidOid;
}

// The schema of the extension: where its snowflake_timestamp(bigint) is.
Oid extension_schema(Oid ext) {
    Oid nsp = InvalidOid;
    CatCList *list = SearchSysCacheList1(PROCNAMEARGSNSP, CStringGetDatum("snowflake_timestamp"));
    for (int i = 0; i < list->n_members && !OidIsValid(nsp); i++) {
        HeapTuple tup = &list->members[i]->tuple;
        const auto *proc = reinterpret_cast<Form_pg_proc>(GETSTRUCT(tup));
        if (proc->pronargs == 1 && getExtensionOfObject(ProcedureRelationId, proc->oid) == ext)
            nsp = proc->pronamespace;
    }
    ReleaseSysCacheList(list);
    return nsp;
}

void fill_catalog() {
    if (!callback_registered) {
        CacheRegisterSyscacheCallback(PROCOID, drop_catalog, 0);
        callback_registered = true;
    }
    const uint64 seen = invalidations;
    Catalog c{};
    const Oid ext = get_extension_oid("snowflake", true);
    const Oid nsp = OidIsValid(ext) ? extension_schema(ext) : InvalidOid;
    if (OidIsValid(nsp)) {
        const Oid one[] = {INT8OID};
        const Oid layout[] = {INT8OID, INT8OID, INT4OID, INT4OID, INT4OID};
        const Oid bound_layout[] = {TIMESTAMPTZOID, INT8OID, INT4OID, INT4OID, INT4OID};
        c.ts = function_in(nsp, "snowflake_timestamp", one, 1, "snowflake_timestamp");
        c.ts_layout = function_in(nsp, "snowflake_timestamp", layout, 5,
                                  "snowflake_timestamp_with_layout");
        c.ready = OidIsValid(c.ts) && OidIsValid(c.ts_layout);
        for (int i = 0; i < kCmps; i++) {
            const Oid tz = TIMESTAMPTZOID, date = DATEOID, ts = TIMESTAMPOID;
            c.bound[i] = function_in(nsp, kBoundNames[i], &tz, 1, kBoundNames[i]);
            c.bound_layout[i] =
                function_in(nsp, kBoundNames[i], bound_layout, 5, kBoundLayoutSymbols[i]);
            c.bound_date[i] = function_in(nsp, kBoundNames[i], &date, 1, kBoundDateSymbols[i]);
            c.bound_timestamp[i] =
                function_in(nsp, kBoundNames[i], &ts, 1, kBoundTimestampSymbols[i]);
            c.ready = c.ready && OidIsValid(c.bound[i]) && OidIsValid(c.bound_layout[i]) &&
                      OidIsValid(c.bound_date[i]) && OidIsValid(c.bound_timestamp[i]);
        }
        c.int8_ge = get_opfamily_member(INTEGER_BTREE_FAM_OID, INT8OID, INT8OID,
                                        BTGreaterEqualStrategyNumber);
        c.int8_le = get_opfamily_member(INTEGER_BTREE_FAM_OID, INT8OID, INT8OID,
                                        BTLessEqualStrategyNumber);
        c.ready = c.ready && OidIsValid(c.int8_ge) && OidIsValid(c.int8_le);
    }
    c.valid = invalidations == seen;
    catalog = c;
}

// ---------------------------------------------------------- recognition --

bool has_agg_or_window(Node *node, void *) {
    if (node == nullptr)
        return false;
    if (IsA(node, Aggref) || IsA(node, GroupingFunc) || IsA(node, WindowFunc))
        return true;
    return expression_tree_walker(node, SF_WALKER(has_agg_or_window), nullptr);
}

// An expression we may evaluate once per scan instead of once per row, or
// write twice.
bool movable(Node *x) {
    return !contain_volatile_functions(x) && !contain_subplans(x) && !expression_returns_set(x) &&
           !has_agg_or_window(x, nullptr);
}

// A snowflake_timestamp call whose bounds we can write: the id argument, and
// for the IMMUTABLE form the layout arguments (constants of a valid layout,
// so that the bound functions cannot raise an error the call would not).
struct TimestampCall {
    Node *id;
    List *layout_args;  // NIL for the server's layout
};

bool timestamp_call(Node *node, TimestampCall *out) {
    if (!IsA(node, FuncExpr))
        return false;
    auto *f = reinterpret_cast<FuncExpr *>(node);
    if (f->funcid == catalog.ts && list_length(f->args) == 1) {
        if (!server_layout_or_null())
            return false;
        out->id = static_cast<Node *>(linitial(f->args));
        out->layout_args = NIL;
        return true;
    }
    if (f->funcid != catalog.ts_layout || list_length(f->args) != 5)
        return false;
    Const *c[4];
    for (int i = 0; i < 4; i++) {
        Node *a = static_cast<Node *>(list_nth(f->args, i + 1));
        if (!IsA(a, Const) || reinterpret_cast<Const *>(a)->constisnull)
            return false;
        c[i] = reinterpret_cast<Const *>(a);
    }
    const int64 epoch = DatumGetInt64(c[0]->constvalue);
    const int32 dc = DatumGetInt32(c[1]->constvalue);
    const int32 w = DatumGetInt32(c[2]->constvalue);
    const int32 s = DatumGetInt32(c[3]->constvalue);
    if (epoch < 0 || epoch > kMaxEpochArgMs ||
        snowflake::validate_widths(dc, w, s) != snowflake::LayoutError::None)
        return false;
    out->id = static_cast<Node *>(linitial(f->args));
    out->layout_args = list_copy_tail(f->args, 1);
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

// The bound function for "ts(id) CMP x", by the type of x; InvalidOid when
// there is none (a date or timestamp against the IMMUTABLE form: comparing
// them depends on the session's time zone, which the layout-taking bound
// functions do not read).
Oid bound_function(const TimestampCall &call, TimeCmp cmp, Oid xtype) {
    const int i = static_cast<int>(cmp);
    if (xtype == TIMESTAMPTZOID)
        return call.layout_args != NIL ? catalog.bound_layout[i] : catalog.bound[i];
    if (call.layout_args != NIL)
        return InvalidOid;
    if (xtype == DATEOID)
        return catalog.bound_date[i];
    if (xtype == TIMESTAMPOID)
        return catalog.bound_timestamp[i];
    return InvalidOid;
}

Expr *bound_condition(const TimestampCall &call, TimeCmp cmp, Node *x) {
    const bool lower = cmp == TimeCmp::AtOrAfter || cmp == TimeCmp::After;
    List *args = list_of(copy_node(x));
    const Oid fn = bound_function(call, cmp, exprType(x));
    if (call.layout_args != NIL)
        args = list_concat(args, copy_node(call.layout_args));
    Expr *bound = reinterpret_cast<Expr *>(
        makeFuncExpr(fn, INT8OID, args, InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL));
    return make_opclause(lower ? catalog.int8_ge : catalog.int8_le, BOOLOID, false,
                         reinterpret_cast<Expr *>(copy_node(call.id)), bound, InvalidOid,
                         InvalidOid);
}

// "id >= 0": an upper bound alone would let a negative id (which no node
// makes, and whose snowflake_timestamp is an error) pass as made before x.
// A lower bound never does: the smallest is 0.
Expr *not_negative(const TimestampCall &call) {
    Const *zero = makeConst(INT8OID, -1, InvalidOid, sizeof(int64), Int64GetDatum(0), false,
                            FLOAT8PASSBYVAL);
    return make_opclause(catalog.int8_ge, BOOLOID, false,
                         reinterpret_cast<Expr *>(copy_node(call.id)),
                         reinterpret_cast<Expr *>(zero), InvalidOid, InvalidOid);
}

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

// "snowflake_timestamp(id) CMP x" (either way round) as id bounds, or null.
Node *rewrite_comparison(OpExpr *op) {
    if (op->opretset || list_length(op->args) != 2)
        return nullptr;
    TimeCmp cmp;
    bool equal;
    if (!comparison_of(get_opcode(op->opno), &cmp, &equal))
        return nullptr;
    TimestampCall call;
    Node *x;
    if (timestamp_call(static_cast<Node *>(linitial(op->args)), &call)) {
        x = static_cast<Node *>(lsecond(op->args));
    } else if (timestamp_call(static_cast<Node *>(lsecond(op->args)), &call)) {
        x = static_cast<Node *>(linitial(op->args));
        cmp = commuted(cmp);
    } else {
        return nullptr;
    }
    if (!movable(call.id) || !movable(x))
        return nullptr;
    if (!OidIsValid(bound_function(call, TimeCmp::AtOrAfter, exprType(x))))
        return nullptr;
    if (!equal && (cmp == TimeCmp::AtOrAfter || cmp == TimeCmp::After))
        return reinterpret_cast<Node *>(bound_condition(call, cmp, x));
    if (!equal)
        return reinterpret_cast<Node *>(
            make_andclause(list_of(not_negative(call), bound_condition(call, cmp, x))));
    return reinterpret_cast<Node *>(
        make_andclause(list_of(bound_condition(call, TimeCmp::AtOrAfter, x),
                               bound_condition(call, TimeCmp::AtOrBefore, x))));
}

// "id >= 0" of not_negative(), and the id it is about.
bool is_not_negative(Node *n, Node **id) {
    if (!IsA(n, OpExpr) || reinterpret_cast<OpExpr *>(n)->opno != catalog.int8_ge)
        return false;
    Node *r = static_cast<Node *>(lsecond(reinterpret_cast<OpExpr *>(n)->args));
    if (!IsA(r, Const) || reinterpret_cast<Const *>(r)->constisnull ||
        DatumGetInt64(reinterpret_cast<Const *>(r)->constvalue) != 0)
        return false;
    *id = static_cast<Node *>(linitial(reinterpret_cast<OpExpr *>(n)->args));
    return true;
}

// A lower bound a rewrite made ("id >= snowflake_min_id_...(x)"), alone or
// first in the pair an "=" becomes, on an id equal to `id`.
bool is_lower_bound_on(Node *n, Node *id) {
    if (is_andclause(n))
        n = static_cast<Node *>(linitial(reinterpret_cast<BoolExpr *>(n)->args));
    if (!IsA(n, OpExpr) || reinterpret_cast<OpExpr *>(n)->opno != catalog.int8_ge)
        return false;
    const List *args = reinterpret_cast<OpExpr *>(n)->args;
    return IsA(lsecond(args), FuncExpr) && equal(linitial(args), id);
}

// Among conjuncts already rewritten: an upper bound's "id >= 0" is dropped
// where a lower bound on the same id sits beside it (which excludes
// negative ids already), so that a time window reads as two bounds.
void drop_implied_not_negative(List *conjuncts) {
    ListCell *lc;
    foreach (lc, conjuncts) {
        Node *n = static_cast<Node *>(lfirst(lc));
        if (!is_andclause(n) || list_length(reinterpret_cast<BoolExpr *>(n)->args) != 2)
            continue;
        Node *id;
        if (!is_not_negative(static_cast<Node *>(linitial(reinterpret_cast<BoolExpr *>(n)->args)),
                             &id))
            continue;
        ListCell *other;
        foreach (other, conjuncts) {
            if (other != lc && is_lower_bound_on(static_cast<Node *>(lfirst(other)), id)) {
                lfirst(lc) = lsecond(reinterpret_cast<BoolExpr *>(n)->args);
                break;
            }
        }
    }
}

// The top-level AND conjuncts of a qualification, rewritten in place.
Node *rewrite_quals(Node *quals) {
    if (quals == nullptr)
        return nullptr;
    if (IsA(quals, List) || is_andclause(quals)) {  // an implicit or explicit AND
        List *conjuncts = IsA(quals, List) ? reinterpret_cast<List *>(quals)
                                           : reinterpret_cast<BoolExpr *>(quals)->args;
        ListCell *lc;
        foreach (lc, conjuncts)
            lfirst(lc) = rewrite_quals(static_cast<Node *>(lfirst(lc)));
        drop_implied_not_negative(conjuncts);
        return quals;
    }
    if (IsA(quals, OpExpr)) {
        Node *rewritten = rewrite_comparison(reinterpret_cast<OpExpr *>(quals));
        return rewritten ? rewritten : quals;
    }
    return quals;
}

void rewrite_jointree(Node *node) {
    if (node == nullptr)
        return;
    if (IsA(node, FromExpr)) {
        auto *f = reinterpret_cast<FromExpr *>(node);
        f->quals = rewrite_quals(f->quals);
        ListCell *lc;
        foreach (lc, f->fromlist)
            rewrite_jointree(static_cast<Node *>(lfirst(lc)));
    } else if (IsA(node, JoinExpr)) {
        auto *j = reinterpret_cast<JoinExpr *>(node);
        j->quals = rewrite_quals(j->quals);
        rewrite_jointree(j->larg);
        rewrite_jointree(j->rarg);
    }
}

// Every query level: the query itself, subqueries in FROM, CTEs and
// sublinks anywhere.
bool rewrite_walker(Node *node, void *context) {
    if (node == nullptr)
        return false;
    if (IsA(node, Query)) {
        Query *q = reinterpret_cast<Query *>(node);
        rewrite_jointree(reinterpret_cast<Node *>(q->jointree));
        return query_tree_walker(q, SF_WALKER(rewrite_walker), context, 0);
    }
    return expression_tree_walker(node, SF_WALKER(rewrite_walker), context);
}

void rewrite_query(Query *parse) {
    if (!catalog.valid)
        fill_catalog();
    if (!catalog.ready)
        return;
    rewrite_walker(reinterpret_cast<Node *>(parse), nullptr);
}

PlannedStmt *time_predicates_planner(Query *parse, const char *query_string, int cursor_options,
                                     ParamListInfo bound_params) {
    if (guc_time_predicates)
        run_guarded([&] { rewrite_query(parse); });
    if (prev_planner_hook)
        return prev_planner_hook(parse, query_string, cursor_options, bound_params);
    return standard_planner(parse, query_string, cursor_options, bound_params);
}

}  // namespace

void define_time_predicates_setting() {
    DefineCustomBoolVariable(
        "snowflake.time_predicates",
        "Lets the planner answer conditions on snowflake_timestamp(id) from the id's index.",
        "Rewrites snowflake_timestamp(id) >= x (and >, <, <=, =, BETWEEN) into the equivalent "
        "bounds on id when a statement is planned.",
        &guc_time_predicates, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
}

void install_planner_hook() {
    prev_planner_hook = planner_hook;
    planner_hook = time_predicates_planner;
}

}  // namespace sfpg
