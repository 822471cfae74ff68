-- The durable mark of an install of an earlier version (which had none):
-- above the region its sequences published, before they are used unlogged.
DO $mark$
DECLARE
    s @extschema@.snowflake_sql_config := @extschema@.snowflake_sql_settings();
    hi bigint := coalesce(pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_bound'), 0);
BEGIN
    IF hi > 0 AND coalesce(pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_mark'), 0)
                  <= (hi - 1) >> (s.datacenter_bits + s.worker_bits + s.sequence_bits) THEN
        PERFORM pg_catalog.setval('@extschema@.snowflake_sql_mark',
                                  ((hi - 1) >> (s.datacenter_bits + s.worker_bits + s.sequence_bits)) + 1,
                                  true);
    END IF;
END
$mark$;

