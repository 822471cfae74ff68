// snowflake_parse(id, epoch_ms, datacenter_bits, worker_bits, sequence_bits):
// the IMMUTABLE form of snowflake_parse(id), with the layout as arguments
// (for expression indexes, and for ids made under another layout).
#include "../core/layout.hpp"

#include "firewall.hpp"
#include "layout_args.hpp"
#include "sql_values.hpp"

SNOWFLAKE_ENTRY(snowflake_parse_with_layout) {
    const int64 id = PG_GETARG_INT64(0);
    const snowflake::Layout layout = sfpg::layout_from_args(fcinfo, 1);
    snowflake::IdParts p;
    if (!snowflake::decompose(layout, id, &p))
        sfpg::invalid_id(id);

    TupleDesc tupdesc;
    if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("function returning record called in context that cannot accept "
                               "type record")));
    tupdesc = BlessTupleDesc(tupdesc);
    Datum values[5] = {sfpg::unix_ms_to_timestamptz(p.unix_ms), Int64GetDatum(p.unix_ms),
                       Int32GetDatum(p.datacenter_id), Int32GetDatum(p.worker_id),
                       Int32GetDatum(p.sequence)};
    bool nulls[5] = {false, false, false, false, false};
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
