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

    PG_RETURN_DATUM(sfpg::id_parts_record(fcinfo, p));
}
