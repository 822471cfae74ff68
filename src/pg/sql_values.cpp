#include "settings.hpp"

#include "sql_values.hpp"

namespace sfpg {

namespace {
// Unix ms of PostgreSQL's timestamp epoch, 2000-01-01 00:00:00 UTC.
constexpr int64 kPgEpochUnixMs = INT64CONST(946684800000);
}  // namespace

const snowflake::Layout &server_layout() {
    if (g_layout_error)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s", g_layout_error)));
    return g_layout;
}

void invalid_id(int64 id) {
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("invalid snowflake id: %lld", static_cast<long long>(id)),
                    errdetail("snowflake ids are non-negative")));
    pg_unreachable();
}

Datum unix_ms_to_timestamptz(int64 unix_ms) {
    // Layouts with wide timestamps reach far past timestamptz's range (2^62 ms
    // is ~146 million years): report that instead of wrapping.
    int64 us;
    if (pg_mul_s64_overflow(unix_ms - kPgEpochUnixMs, 1000, &us) || !IS_VALID_TIMESTAMP(us))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("timestamp out of range: %lld ms after 1970-01-01",
                               static_cast<long long>(unix_ms))));
    return TimestampTzGetDatum(us);
}

Datum unix_ms_to_timestamptz_or_infinity(int64 unix_ms) {
    int64 us;
    TimestampTz t;
    if (pg_mul_s64_overflow(unix_ms - kPgEpochUnixMs, 1000, &us) || !IS_VALID_TIMESTAMP(us)) {
        if (unix_ms > 0)
            TIMESTAMP_NOEND(t);
        else
            TIMESTAMP_NOBEGIN(t);
        return TimestampTzGetDatum(t);
    }
    return TimestampTzGetDatum(us);
}

Datum id_parts_record(FunctionCallInfo fcinfo, const snowflake::IdParts &p) {
    TupleDesc tupdesc;
    if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("function returning record called in context that cannot accept "
                               "type record")));
    tupdesc = BlessTupleDesc(tupdesc);
    Datum values[5] = {unix_ms_to_timestamptz(p.unix_ms), Int64GetDatum(p.unix_ms),
                       Int32GetDatum(p.datacenter_id), Int32GetDatum(p.worker_id),
                       Int32GetDatum(p.sequence)};
    bool nulls[5] = {false, false, false, false, false};
    return HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
}

}  // namespace sfpg
