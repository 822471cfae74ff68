-- The durable mark, and the layout of the ids made, of an install of an
-- earlier version (which had neither): above the region its sequences
-- published, before they are used unlogged.
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
    -- And the layout the ids were made under.
    IF hi > 0 AND coalesce(pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_layout'), 0) = 0 THEN
        PERFORM pg_catalog.setval('@extschema@.snowflake_sql_layout',
            (s.epoch_ms << 15) | (s.datacenter_bits << 10) | (s.worker_bits << 5) | s.sequence_bits,
            true);
    END IF;
END
$mark$;

