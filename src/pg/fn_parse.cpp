// snowflake_parse(id): decode an id with the server's epoch and layout.
#include "../core/layout.hpp"
#include "settings.hpp"

#include "firewall.hpp"
#include "sql_values.hpp"

SNOWFLAKE_ENTRY(snowflake_parse) {
    const int64 id = PG_GETARG_INT64(0);
    const snowflake::Layout &layout = sfpg::server_layout();
    snowflake::IdParts p;
    if (!snowflake::decompose(layout, id, &p))
        sfpg::invalid_id(id);

    PG_RETURN_DATUM(sfpg::id_parts_record(fcinfo, p));
}
