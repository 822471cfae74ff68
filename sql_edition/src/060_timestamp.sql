-- ===========================================================================
-- Decoding (the C extension's functions, with the same results and errors)
-- ===========================================================================

-- With the configured layout (STABLE, as in the C extension: they read the
-- node's settings).
CREATE OR REPLACE FUNCTION @extschema@.snowflake_timestamp(id bigint)
RETURNS timestamptz
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN CASE WHEN id < 0 THEN @extschema@.snowflake_sql_invalid_id_ts(id)
            ELSE @extschema@.snowflake_sql_ms_to_ts((@extschema@.snowflake_sql_settings()).epoch_ms
                                        + (id >> ((@extschema@.snowflake_sql_settings()).datacenter_bits
                                                  + (@extschema@.snowflake_sql_settings()).worker_bits
                                                  + (@extschema@.snowflake_sql_settings()).sequence_bits)))
       END;
COMMENT ON FUNCTION @extschema@.snowflake_timestamp(bigint) IS 'when an id was made: (snowflake_parse(id)).ts, faster';

-- Replaced by snowflake_sql_invalid_id(bigint) and snowflake_sql_invalid_id_ts
-- (1.6): a polymorphic helper, which the function above called until now.
DROP FUNCTION IF EXISTS @extschema@.snowflake_sql_invalid_id(anyelement, bigint);

