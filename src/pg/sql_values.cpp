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

}  // namespace sfpg
