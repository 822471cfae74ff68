// Time <-> id: snowflake_timestamp(id) and the id bounds of a millisecond,
// snowflake_min_id(ts) / snowflake_max_id(ts), each in a STABLE form (the
// server's layout) and an IMMUTABLE form (the layout as arguments); and
// snowflake_make_id(ts, datacenter_id, worker_id, sequence), the inverse of
// snowflake_parse.
//
// Every time error here is SQLSTATE 22008 (datetime_field_overflow):
// infinite timestamps, times before the epoch and times past the lifetime.
// A node or sequence field that does not fit the layout is 22023.
#include "../core/layout.hpp"

#include "firewall.hpp"
#include "layout_args.hpp"
#include "sql_values.hpp"

namespace {

// Unix ms of PostgreSQL's timestamp epoch, 2000-01-01 00:00:00 UTC.
constexpr int64 kPgEpochUnixMs = INT64CONST(946684800000);

// The Unix ms of the millisecond that contains ts.  Rounds toward -infinity
// (C++ division truncates toward zero, which would put 1999-12-31
// 23:59:59.9995 in the next millisecond).  Dividing before shifting to the
// Unix epoch keeps the sum in range for every finite timestamptz.
int64 unix_ms_floor(TimestampTz ts) {
    int64 ms = ts / 1000;
    if (ts % 1000 < 0)
        --ms;
    return ms + kPgEpochUnixMs;
}

// Room for any timestamptz_to_str() result (its buffer is MAXDATELEN + 1 = 129).
constexpr size_t kTimestampTextLen = 160;

// timestamptz_to_str() returns a static buffer: copy it so that two
// timestamps can appear in one message.
void timestamp_text(TimestampTz ts, char *buf, size_t len) {
    strlcpy(buf, timestamptz_to_str(ts), len);
}

TimestampTz ms_to_timestamptz(int64 unix_ms) {
    return DatumGetTimestampTz(sfpg::unix_ms_to_timestamptz(unix_ms));
}

[[noreturn]] void no_id_for(const snowflake::Layout &layout, TimestampTz ts, int64 unix_ms) {
    if (TIMESTAMP_NOT_FINITE(ts))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("timestamp \"%s\" has no snowflake id",
                               TIMESTAMP_IS_NOBEGIN(ts) ? "-infinity" : "infinity"),
                        errdetail("Only finite times from the epoch to the end of the layout's "
                                  "lifetime map to ids.")));
    char tsbuf[kTimestampTextLen];
    timestamp_text(ts, tsbuf, sizeof tsbuf);
    if (unix_ms < layout.epoch_ms)
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("timestamp \"%s\" is before the snowflake epoch", tsbuf),
                        errdetail("The epoch is %s.",
                                  timestamptz_to_str(ms_to_timestamptz(layout.epoch_ms)))));
    // Past the lifetime: the lifetime end is before ts, so it is a valid
    // timestamptz too.
    ereport(ERROR,
            (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
             errmsg("timestamp \"%s\" is past the end of the snowflake lifetime", tsbuf),
             errdetail("The last millisecond the layout can represent is %s.",
                       timestamptz_to_str(ms_to_timestamptz(layout.lifetime_end_unix_ms())))));
    pg_unreachable();
}

// Smallest (or largest) id any node can produce in the millisecond of ts.
int64 id_bound(const snowflake::Layout &layout, TimestampTz ts, bool largest) {
    if (TIMESTAMP_NOT_FINITE(ts))
        no_id_for(layout, ts, 0);
    const int64 unix_ms = unix_ms_floor(ts);
    int64 id;
    const bool ok = largest ? snowflake::max_id_for_ms(layout, unix_ms, &id)
                            : snowflake::min_id_for_ms(layout, unix_ms, &id);
    if (!ok)
        no_id_for(layout, ts, unix_ms);
    return id;
}

Datum id_timestamp(const snowflake::Layout &layout, int64 id) {
    if (id < 0)
        sfpg::invalid_id(id);
    // Shift only: no need to decompose the node and sequence fields.  The sum
    // cannot overflow (the epoch is at most year 9999, the field below 2^62).
    const int64 field = id >> layout.timestamp_shift();
    return sfpg::unix_ms_to_timestamptz(layout.epoch_ms + field);
}

}  // namespace

SNOWFLAKE_ENTRY(snowflake_timestamp) {
    return id_timestamp(sfpg::server_layout(), PG_GETARG_INT64(0));
}

SNOWFLAKE_ENTRY(snowflake_timestamp_with_layout) {
    const snowflake::Layout layout = sfpg::layout_from_args(fcinfo, 1);
    return id_timestamp(layout, PG_GETARG_INT64(0));
}

SNOWFLAKE_ENTRY(snowflake_min_id) {
    PG_RETURN_INT64(id_bound(sfpg::server_layout(), PG_GETARG_TIMESTAMPTZ(0), false));
}

SNOWFLAKE_ENTRY(snowflake_max_id) {
    PG_RETURN_INT64(id_bound(sfpg::server_layout(), PG_GETARG_TIMESTAMPTZ(0), true));
}

SNOWFLAKE_ENTRY(snowflake_min_id_with_layout) {
    const snowflake::Layout layout = sfpg::layout_from_args(fcinfo, 1);
    PG_RETURN_INT64(id_bound(layout, PG_GETARG_TIMESTAMPTZ(0), false));
}

SNOWFLAKE_ENTRY(snowflake_max_id_with_layout) {
    const snowflake::Layout layout = sfpg::layout_from_args(fcinfo, 1);
    PG_RETURN_INT64(id_bound(layout, PG_GETARG_TIMESTAMPTZ(0), true));
}

namespace {

[[noreturn]] void part_out_of_range(const char *part, int32 value, int64 max, const char *setting,
                                    int bits) {
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("%s %d is out of range for a snowflake id", part, value),
                    errdetail("Under this server's layout (%s = %d) %s is 0 to %lld.", setting,
                              bits, part, static_cast<long long>(max))));
    pg_unreachable();
}

}  // namespace

// No uniqueness promise: the parts are the caller's, and nothing stops the
// generator (of this node or of the node whose identity is given) from
// issuing the same id.
SNOWFLAKE_ENTRY(snowflake_make_id) {
    const snowflake::Layout &layout = sfpg::server_layout();
    const TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    const int32 datacenter_id = PG_GETARG_INT32(1);
    const int32 worker_id = PG_GETARG_INT32(2);
    const int32 sequence = PG_GETARG_INT32(3);
    if (TIMESTAMP_NOT_FINITE(ts))
        no_id_for(layout, ts, 0);
    const int64 unix_ms = unix_ms_floor(ts);
    int64_t id = 0;
    switch (snowflake::compose_parts(layout, unix_ms, datacenter_id, worker_id, sequence, &id)) {
    case snowflake::ComposeError::None:
        break;
    case snowflake::ComposeError::BeforeEpoch:
    case snowflake::ComposeError::PastLifetime:
        no_id_for(layout, ts, unix_ms);
    case snowflake::ComposeError::DatacenterOutOfRange:
        part_out_of_range("datacenter_id", datacenter_id, layout.max_datacenter_id(),
                          "snowflake.datacenter_bits", layout.datacenter_bits);
    case snowflake::ComposeError::WorkerOutOfRange:
        part_out_of_range("worker_id", worker_id, layout.max_worker_id(), "snowflake.worker_bits",
                          layout.worker_bits);
    case snowflake::ComposeError::SequenceOutOfRange:
        part_out_of_range("sequence", sequence, layout.max_sequence(), "snowflake.sequence_bits",
                          layout.sequence_bits);
    }
    PG_RETURN_INT64(id);
}
