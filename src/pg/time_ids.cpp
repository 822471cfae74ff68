#include <cstring>

#include "settings.hpp"
#include "time_ids.hpp"

#if PG_VERSION_NUM >= 190000
extern "C" {
#include "nodes/miscnodes.h"
}
#endif

namespace sfpg {

namespace {

// Unix ms of PostgreSQL's timestamp epoch, 2000-01-01 00:00:00 UTC.
constexpr int64 kPgEpochUnixMs = INT64CONST(946684800000);

// A finite timestamptz as the millisecond it falls in.  Divides before
// shifting to the Unix epoch, so every finite timestamptz stays in range.
snowflake::TimePoint time_point(TimestampTz ts) {
    int64 ms = ts / 1000;
    int64 rem = ts % 1000;
    if (rem < 0) {
        --ms;
        rem += 1000;
    }
    return snowflake::TimePoint{ms + kPgEpochUnixMs, rem != 0};
}

bool lower_kind(snowflake::TimeCmp cmp) {
    return cmp == snowflake::TimeCmp::AtOrAfter || cmp == snowflake::TimeCmp::After;
}

// One end of a range, with the infinities folded in: "ts > -infinity" and
// "ts < infinity" hold for every id (unbounded); "ts >= infinity" and
// "ts <= -infinity" for none (*none).
snowflake::RangeEnd range_end(const RangeBound &b, bool *none) {
    snowflake::RangeEnd e{true, false, {0, false}};
    if (b.infinite)
        return e;
    const TimestampTz ts = DatumGetTimestampTz(b.val);
    if (TIMESTAMP_NOT_FINITE(ts)) {
        // A lower bound of -infinity or an upper bound of infinity excludes
        // nothing; the other two exclude everything.
        if (b.lower ? TIMESTAMP_IS_NOEND(ts) : TIMESTAMP_IS_NOBEGIN(ts))
            *none = true;
        return e;
    }
    e.unbounded = false;
    e.inclusive = b.inclusive;
    e.t = time_point(ts);
    return e;
}

}  // namespace

bool time_id_bound(const snowflake::Layout &layout, snowflake::TimeCmp cmp, TimestampTz ts,
                   int64 *out) {
    if (TIMESTAMP_NOT_FINITE(ts)) {
        // Every id is later than -infinity and earlier than infinity.
        const bool every = lower_kind(cmp) ? TIMESTAMP_IS_NOBEGIN(ts) : TIMESTAMP_IS_NOEND(ts);
        if (!every)
            return false;
        *out = lower_kind(cmp) ? 0 : PG_INT64_MAX;
        return true;
    }
    int64_t v;
    if (!snowflake::id_bound(layout, cmp, time_point(ts), &v))
        return false;
    *out = v;
    return true;
}

namespace {

TimestampTz overflow_to_infinity(TimestampTz t, int overflow) {
    if (overflow > 0)
        TIMESTAMP_NOEND(t);
    else if (overflow < 0)
        TIMESTAMP_NOBEGIN(t);
    return t;
}

}  // namespace

#if PG_VERSION_NUM >= 190000
// PostgreSQL 19 reports a result out of timestamptz's range as a soft error;
// it falls off the end on the input's side.
TimestampTz date_as_timestamptz(DateADT d) {
    ErrorSaveContext escontext{};
    escontext.type = T_ErrorSaveContext;
    const TimestampTz t = date2timestamptz_safe(d, reinterpret_cast<Node *>(&escontext));
    return overflow_to_infinity(t, escontext.error_occurred ? (d > 0 ? 1 : -1) : 0);
}

TimestampTz timestamp_as_timestamptz(Timestamp ts) {
    ErrorSaveContext escontext{};
    escontext.type = T_ErrorSaveContext;
    const TimestampTz t = timestamp2timestamptz_safe(ts, reinterpret_cast<Node *>(&escontext));
    return overflow_to_infinity(t, escontext.error_occurred ? (ts > 0 ? 1 : -1) : 0);
}
#else
TimestampTz date_as_timestamptz(DateADT d) {
    int overflow = 0;
    const TimestampTz t = date2timestamptz_opt_overflow(d, &overflow);
    return overflow_to_infinity(t, overflow);
}

TimestampTz timestamp_as_timestamptz(Timestamp ts) {
    int overflow = 0;
    const TimestampTz t = timestamp2timestamptz_opt_overflow(ts, &overflow);
    return overflow_to_infinity(t, overflow);
}
#endif

bool range_ids(const snowflake::Layout &layout, Datum range, int64 *lo, int64 *hi,
               bool *upper_inclusive) {
    RangeType *r = DatumGetRangeTypeP(range);
    TypeCacheEntry *typcache = lookup_type_cache(RangeTypeGetOid(r), TYPECACHE_RANGE_INFO);
    if (typcache->rngelemtype == nullptr || typcache->rngelemtype->type_id != TIMESTAMPTZOID)
        ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                        errmsg("expected a range of timestamp with time zone, got %s",
                               format_type_be(RangeTypeGetOid(r)))));
    RangeBound lower, upper;
    bool empty;
    range_deserialize(typcache, r, &lower, &upper, &empty);
    if (empty)
        return false;
    bool none = false;
    const snowflake::RangeEnd l = range_end(lower, &none);
    const snowflake::RangeEnd u = range_end(upper, &none);
    if (none)
        return false;
    int64_t a, b;
    if (!snowflake::ids_within(layout, l, u, &a, &b))
        return false;
    *lo = a;
    *hi = b;
    *upper_inclusive = u.unbounded || u.inclusive;
    return true;
}

bool c_function_symbol(Oid fn, char *buf, size_t len) {
    HeapTuple tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
    if (!HeapTupleIsValid(tup))
        return false;
    bool found = false;
    if (reinterpret_cast<Form_pg_proc>(GETSTRUCT(tup))->prolang == ClanguageId) {
        bool isnull;
        const Datum src = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);
        if (!isnull) {
            text_to_cstring_buffer(DatumGetTextPP(src), buf, len);
            found = true;
        }
    }
    ReleaseSysCache(tup);
    return found;
}

bool is_c_function(Oid fn, const char *symbol) {
    char buf[kSymbolLen];
    return c_function_symbol(fn, buf, sizeof buf) && strcmp(buf, symbol) == 0;
}

const snowflake::Layout *server_layout_or_null() {
    return g_layout_error ? nullptr : &g_layout;
}

}  // namespace sfpg
