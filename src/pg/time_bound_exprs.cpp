#include "time_bound_exprs.hpp"

extern "C" {
#include "catalog/pg_collation.h"
#include "utils/datetime.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"
}

namespace sfpg {

namespace {

using snowflake::TimeCmp;

// pg_catalog's numeric - and * (fixed OIDs of the built-in operators).
constexpr Oid kNumericSubOp = 1759;
constexpr Oid kNumericMulOp = 1760;

// Years 1 and 294276: a date or timestamp between them converts to a
// timestamptz in every time zone without an error.
constexpr int kFirstYear = 1;
constexpr int kLastYear = 294276;

Expr *numeric_const(int64 v) {
    return reinterpret_cast<Expr *>(makeConst(NUMERICOID, -1, InvalidOid, -1,
                                              NumericGetDatum(int64_to_numeric(v)), false, false));
}

Expr *numeric_op(Oid opno, RegProcedure fn, Expr *a, Expr *b) {
    auto *op = reinterpret_cast<OpExpr *>(
        make_opclause(opno, NUMERICOID, false, a, b, InvalidOid, InvalidOid));
    op->opfuncid = fn;
    return reinterpret_cast<Expr *>(op);
}

Expr *call(RegProcedure fn, Oid type, List *args, CoercionForm form) {
    return reinterpret_cast<Expr *>(makeFuncExpr(fn, type, args, InvalidOid, InvalidOid, form));
}

Expr *minmax(Oid type, MinMaxOp op, Expr *a, Expr *b) {
    MinMaxExpr *m = makeNode(MinMaxExpr);
    m->minmaxtype = type;
    m->minmaxcollid = InvalidOid;
    m->inputcollid = InvalidOid;
    m->op = op;
    m->args = list_of(a, b);
    m->location = -1;
    return reinterpret_cast<Expr *>(m);
}

Expr *infinity() {
    TimestampTz t;
    TIMESTAMP_NOEND(t);
    return reinterpret_cast<Expr *>(makeConst(TIMESTAMPTZOID, -1, InvalidOid, sizeof(TimestampTz),
                                              TimestampTzGetDatum(t), false, FLOAT8PASSBYVAL));
}

// A date or a timestamp without time zone as a timestamptz in the session's
// time zone, clipped so that the bound can only get weaker: for a lower
// bound a value past the last year becomes the last year; for an upper
// bound it becomes infinity.  Earlier than the first year it is the first
// year (before every epoch: the same bounds as the value itself).
Expr *as_timestamptz(Node *x, bool lower) {
    const Oid type = exprType(x);
    const bool date = type == DATEOID;
    const DateADT first = date2j(kFirstYear, 1, 1) - POSTGRES_EPOCH_JDATE;
    const DateADT last = date2j(kLastYear, 12, 30) - POSTGRES_EPOCH_JDATE;
    auto limit = [&](DateADT d) {
        return reinterpret_cast<Expr *>(
            date ? makeConst(DATEOID, -1, InvalidOid, sizeof(DateADT), DateADTGetDatum(d), false,
                             true)
                 : makeConst(TIMESTAMPOID, -1, InvalidOid, sizeof(Timestamp),
                             TimestampGetDatum(d * USECS_PER_DAY), false, FLOAT8PASSBYVAL));
    };
    const RegProcedure cast = date ? F_TIMESTAMPTZ_DATE : F_TIMESTAMPTZ_TIMESTAMP;
    Expr *at_least_first =
        minmax(type, IS_GREATEST, reinterpret_cast<Expr *>(copy_node(x)), limit(first));
    if (lower)
        return call(cast, TIMESTAMPTZOID,
                    list_of(minmax(type, IS_LEAST, at_least_first, limit(last))),
                    COERCE_EXPLICIT_CAST);
    CaseWhen *past = makeNode(CaseWhen);
    past->expr = call(date ? F_DATE_GT : F_TIMESTAMP_GT, BOOLOID,
                      list_of(copy_node(x), limit(last)), COERCE_EXPLICIT_CALL);
    past->result = infinity();
    past->location = -1;
    CaseExpr *c = makeNode(CaseExpr);
    c->casetype = TIMESTAMPTZOID;
    c->casecollid = InvalidOid;
    c->arg = nullptr;
    c->args = list_of(past);
    c->defresult = call(cast, TIMESTAMPTZOID, list_of(at_least_first), COERCE_EXPLICIT_CAST);
    c->location = -1;
    return reinterpret_cast<Expr *>(c);
}

// x_ms: EXTRACT(epoch FROM t) * 1000, rounded up or down.
Expr *unix_ms(Expr *t, bool up) {
    Expr *epoch = reinterpret_cast<Expr *>(makeConst(
        TEXTOID, -1, DEFAULT_COLLATION_OID, -1, CStringGetTextDatum("epoch"), false, false));
    Expr *seconds = call(F_EXTRACT_TEXT_TIMESTAMPTZ, NUMERICOID, list_of(epoch, t),
                         COERCE_SQL_SYNTAX);
    Expr *ms = numeric_op(kNumericMulOp, F_NUMERIC_MUL, seconds, numeric_const(1000));
    return call(up ? F_CEIL_NUMERIC : F_FLOOR_NUMERIC, NUMERICOID, list_of(ms),
                COERCE_EXPLICIT_CALL);
}

// v clipped to [0, 2^63 - 1], as a bigint.  A NULL v (GREATEST and LEAST
// skip NULLs) gives 0 for a lower bound and 2^63 - 1 for an upper one: no
// bound.
Expr *clipped(Expr *v, bool lower) {
    Expr *zero = numeric_const(0);
    Expr *max = numeric_const(PG_INT64_MAX);
    Expr *c = lower ? minmax(NUMERICOID, IS_LEAST, minmax(NUMERICOID, IS_GREATEST, v, zero), max)
                    : minmax(NUMERICOID, IS_GREATEST, minmax(NUMERICOID, IS_LEAST, v, max), zero);
    return call(F_INT8_NUMERIC, INT8OID, list_of(c), COERCE_EXPLICIT_CAST);
}

Expr *bound_of(const snowflake::Layout &layout, TimeCmp cmp, Expr *t) {
    const bool up = cmp == TimeCmp::AtOrAfter || cmp == TimeCmp::Before;  // ceil, else floor
    const bool lower = cmp == TimeCmp::AtOrAfter || cmp == TimeCmp::After;
    const int64 offset = up ? layout.epoch_ms : layout.epoch_ms - 1;
    Expr *field = numeric_op(kNumericSubOp, F_NUMERIC_SUB, unix_ms(t, up), numeric_const(offset));
    Expr *v = numeric_op(kNumericMulOp, F_NUMERIC_MUL, field,
                         numeric_const(int64{1} << layout.timestamp_shift()));
    if (!lower)
        v = numeric_op(kNumericSubOp, F_NUMERIC_SUB, v, numeric_const(1));
    return clipped(v, lower);
}

}  // namespace

Expr *builtin_time_bound(const snowflake::Layout &layout, TimeCmp cmp, Node *x) {
    const bool lower = cmp == TimeCmp::AtOrAfter || cmp == TimeCmp::After;
    Expr *t = exprType(x) == TIMESTAMPTZOID ? reinterpret_cast<Expr *>(copy_node(x))
                                            : as_timestamptz(x, lower);
    return bound_of(layout, cmp, t);
}

Expr *builtin_range_bound(const snowflake::Layout &layout, bool lower, Node *r) {
    Expr *end = call(lower ? F_LOWER_ANYRANGE : F_UPPER_ANYRANGE, TIMESTAMPTZOID,
                     list_of(copy_node(r)), COERCE_EXPLICIT_CALL);
    return bound_of(layout, lower ? TimeCmp::AtOrAfter : TimeCmp::AtOrBefore, end);
}

}  // namespace sfpg
