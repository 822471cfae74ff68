-- ===========================================================================
-- Decoding (the C extension's functions, with the same results and errors)
-- ===========================================================================

-- With the configured layout (STABLE, as in the C extension: they read the
-- node's settings).
CREATE OR REPLACE FUNCTION snowflake_timestamp(id bigint)
RETURNS timestamptz
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN CASE WHEN id < 0 THEN snowflake_sql_invalid_id(NULL::timestamptz, id)
            ELSE snowflake_sql_ms_to_ts((snowflake_sql_settings()).epoch_ms
                                        + (id >> ((snowflake_sql_settings()).datacenter_bits
                                                  + (snowflake_sql_settings()).worker_bits
                                                  + (snowflake_sql_settings()).sequence_bits)))
       END;
COMMENT ON FUNCTION snowflake_timestamp(bigint) IS 'when an id was made: (snowflake_parse(id)).ts, faster';

