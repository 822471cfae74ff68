#include "time_safe_values.hpp"

extern "C" {
#include "utils/datetime.h"
#include "utils/timestamp.h"
}

namespace sfpg {

namespace {

// At most this many moves of the current time, each of at most kMaxYears:
// 2026 - 4 * 3 * 300 years is still after 4713 BC, the first timestamp.
constexpr int kMaxMoves = 4;
constexpr int64 kMaxYears = 300;
constexpr int64 kUsecsPerYear = INT64CONST(366) * USECS_PER_DAY;

bool initplan_output(PlannerInfo *root, int paramid) {
    for (PlannerInfo *r = root; r != nullptr; r = r->parent_root) {
        ListCell *lc;
        foreach (lc, r->init_plans) {
            auto *sp = static_cast<SubPlan *>(lfirst(lc));
            if (IsA(sp, SubPlan) && list_member_int(sp->setParam, paramid))
                return true;
        }
    }
    return false;
}

const Const *non_null_const(Node *x) {
    if (x == nullptr || !IsA(x, Const) || reinterpret_cast<Const *>(x)->constisnull)
        return nullptr;
    return reinterpret_cast<const Const *>(x);
}

bool small_interval(Node *x) {
    const Const *c = non_null_const(x);
    if (c == nullptr || c->consttype != INTERVALOID)
        return false;
    const Interval *i = DatumGetIntervalP(c->constvalue);
    return i->month >= -12 * kMaxYears && i->month <= 12 * kMaxYears &&
           i->day >= -366 * kMaxYears && i->day <= 366 * kMaxYears &&
           i->time >= -kMaxYears * kUsecsPerYear && i->time <= kMaxYears * kUsecsPerYear;
}

bool small_day_count(Node *x) {
    const Const *c = non_null_const(x);
    if (c == nullptr || c->consttype != INT4OID)
        return false;
    const int32 days = DatumGetInt32(c->constvalue);
    return days >= -366 * kMaxYears && days <= 366 * kMaxYears;
}

// A unit date_trunc takes (it raises an error for any other).
bool known_unit(Node *x) {
    const Const *c = non_null_const(x);
    if (c == nullptr || c->consttype != TEXTOID)
        return false;
    static const char *const units[] = {"microseconds", "milliseconds", "second", "minute",
                                        "hour", "day", "week", "month", "quarter", "year",
                                        "decade", "century", "millennium"};
    char *unit = TextDatumGetCString(c->constvalue);
    for (const char *u : units)
        if (pg_strcasecmp(unit, u) == 0)
            return true;
    return false;
}

bool current_time(Node *x, int moves);

// A function of the current time that keeps it a timestamp, date or
// timestamptz in range.
bool current_time_call(Oid fn, List *args, int moves) {
    const int n = list_length(args);
    Node *a = n > 0 ? static_cast<Node *>(linitial(args)) : nullptr;
    Node *b = n > 1 ? static_cast<Node *>(lsecond(args)) : nullptr;
    switch (fn) {
    case F_NOW:
    case F_STATEMENT_TIMESTAMP:
    case F_TRANSACTION_TIMESTAMP:
        return n == 0;
    case F_TIMESTAMPTZ_PL_INTERVAL:
    case F_TIMESTAMPTZ_MI_INTERVAL:
    case F_TIMESTAMP_PL_INTERVAL:
    case F_TIMESTAMP_MI_INTERVAL:
        return n == 2 && moves < kMaxMoves && small_interval(b) && current_time(a, moves + 1);
    case F_DATE_PLI:
    case F_DATE_MII:
        return n == 2 && moves < kMaxMoves && small_day_count(b) && current_time(a, moves + 1);
    case F_DATE_TRUNC_TEXT_TIMESTAMPTZ:
    case F_DATE_TRUNC_TEXT_TIMESTAMP:
        return n == 2 && known_unit(a) && current_time(b, moves);
    case F_TIMESTAMPTZ_DATE:
    case F_TIMESTAMPTZ_TIMESTAMP:
    case F_TIMESTAMP_TIMESTAMPTZ:
    case F_TIMESTAMP_DATE:
    case F_DATE_TIMESTAMPTZ:
    case F_DATE_TIMESTAMP:
        return n == 1 && current_time(a, moves);
    default:
        return false;
    }
}

bool current_time(Node *x, int moves) {
    if (x == nullptr)
        return false;
    switch (nodeTag(x)) {
    case T_SQLValueFunction:
        switch (reinterpret_cast<SQLValueFunction *>(x)->op) {
        case SVFOP_CURRENT_DATE:
        case SVFOP_CURRENT_TIMESTAMP:
        case SVFOP_CURRENT_TIMESTAMP_N:
        case SVFOP_LOCALTIMESTAMP:
        case SVFOP_LOCALTIMESTAMP_N:
            return true;
        default:
            return false;
        }
    case T_RelabelType:
        return current_time(reinterpret_cast<Node *>(reinterpret_cast<RelabelType *>(x)->arg),
                            moves);
    case T_FuncExpr: {
        auto *f = reinterpret_cast<FuncExpr *>(x);
        return !f->funcretset && current_time_call(f->funcid, f->args, moves);
    }
    case T_OpExpr: {
        auto *op = reinterpret_cast<OpExpr *>(x);
        set_opfuncid(op);
        return !op->opretset && current_time_call(op->opfuncid, op->args, moves);
    }
    default:
        return false;
    }
}

#if PG_VERSION_NUM >= 160000
bool reads_without_error(Oid type, char *text) {
    Oid input_fn, ioparam;
    getTypeInputInfo(type, &input_fn, &ioparam);
    FmgrInfo flinfo;
    fmgr_info(input_fn, &flinfo);
    ErrorSaveContext escontext = {T_ErrorSaveContext};
    Datum value;
    return InputFunctionCallSafe(&flinfo, text, ioparam, -1, reinterpret_cast<Node *>(&escontext),
                                 &value);
}
#else
// timestamptz_in, timestamp_in and date_in, with their errors as false.
bool reads_without_error(Oid type, char *text) {
    char workbuf[MAXDATELEN + MAXDATEFIELDS];
    char *field[MAXDATEFIELDS];
    int ftype[MAXDATEFIELDS];
    int nf, dtype, tz = 0;
    struct pg_tm tt, *tm = &tt;
    fsec_t fsec = 0;
    if (ParseDateTime(text, workbuf, sizeof workbuf, field, ftype, MAXDATEFIELDS, &nf) != 0 ||
        DecodeDateTime(field, ftype, nf, &dtype, tm, &fsec, &tz) != 0)
        return false;
    if (dtype == DTK_EPOCH || dtype == DTK_LATE || dtype == DTK_EARLY)
        return true;
    if (dtype != DTK_DATE)
        return false;
    if (type == DATEOID) {
        if (!IS_VALID_JULIAN(tm->tm_year, tm->tm_mon, tm->tm_mday))
            return false;
        const int date = date2j(tm->tm_year, tm->tm_mon, tm->tm_mday) - POSTGRES_EPOCH_JDATE;
        return IS_VALID_DATE(date);
    }
    Timestamp ts;
    return tm2timestamp(tm, fsec, type == TIMESTAMPTZOID ? &tz : nullptr, &ts) == 0;
}
#endif

// A constant's text (a text or a cstring constant), or null.
char *constant_text(Node *x) {
    if (x == nullptr || !IsA(x, Const))
        return nullptr;
    const Const *k = reinterpret_cast<const Const *>(x);
    if (k->constisnull)
        return nullptr;
    if (k->consttype == TEXTOID)
        return TextDatumGetCString(k->constvalue);
    if (k->consttype == CSTRINGOID)
        return DatumGetCString(k->constvalue);
    return nullptr;
}

bool time_type(Oid type) {
    return type == TIMESTAMPTZOID || type == TIMESTAMPOID || type == DATEOID;
}

// 'text'::text::timestamptz (or timestamp, date): a text constant that
// reads.  The planner leaves it a CoerceViaIO of the text, or a call of the
// type's input function on the constant's cstring.
bool readable_text(Node *x) {
    if (IsA(x, CoerceViaIO)) {
        auto *c = reinterpret_cast<CoerceViaIO *>(x);
        char *text = constant_text(reinterpret_cast<Node *>(c->arg));
        return time_type(c->resulttype) && text != nullptr &&
               reads_without_error(c->resulttype, text);
    }
    if (!IsA(x, FuncExpr))
        return false;
    auto *f = reinterpret_cast<FuncExpr *>(x);
    if ((f->funcid != F_TIMESTAMPTZ_IN && f->funcid != F_TIMESTAMP_IN && f->funcid != F_DATE_IN) ||
        list_length(f->args) < 1 || !time_type(f->funcresulttype))
        return false;
    // The typmod, when given, must be -1 (none).
    if (list_length(f->args) == 3) {
        const Const *typmod = non_null_const(static_cast<Node *>(lthird(f->args)));
        if (typmod == nullptr || typmod->consttype != INT4OID ||
            DatumGetInt32(typmod->constvalue) != -1)
            return false;
    }
    char *text = constant_text(static_cast<Node *>(linitial(f->args)));
    return text != nullptr && reads_without_error(f->funcresulttype, text);
}

}  // namespace

bool computable_ahead(PlannerInfo *root, Node *x) {
    if (x == nullptr)
        return false;
    switch (nodeTag(x)) {
    case T_Const:
    case T_Var:
        return true;
    case T_Param: {
        const Param *p = reinterpret_cast<const Param *>(x);
        return p->paramkind == PARAM_EXTERN ||
               (p->paramkind == PARAM_EXEC && !initplan_output(root, p->paramid));
    }
    case T_RelabelType:
        return computable_ahead(root,
                                reinterpret_cast<Node *>(reinterpret_cast<RelabelType *>(x)->arg));
    default:
        return readable_text(x) || current_time(x, 0);
    }
}

bool range_constructor(Node *r, Node **lower, Node **upper) {
    if (r == nullptr || !IsA(r, FuncExpr))
        return false;
    auto *f = reinterpret_cast<FuncExpr *>(r);
    if ((f->funcid != F_TSTZRANGE_TIMESTAMPTZ_TIMESTAMPTZ || list_length(f->args) != 2) &&
        (f->funcid != F_TSTZRANGE_TIMESTAMPTZ_TIMESTAMPTZ_TEXT || list_length(f->args) != 3))
        return false;
    *lower = static_cast<Node *>(linitial(f->args));
    *upper = static_cast<Node *>(lsecond(f->args));
    return true;
}

}  // namespace sfpg
