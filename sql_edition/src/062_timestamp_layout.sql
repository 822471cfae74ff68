CREATE OR REPLACE FUNCTION @extschema@.snowflake_timestamp(
    id bigint, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    shift integer := @extschema@.snowflake_sql_layout_shift(epoch_ms, datacenter_bits, worker_bits, sequence_bits);
BEGIN
    IF id < 0 THEN
        PERFORM @extschema@.snowflake_sql_invalid_id(id);
    END IF;
    RETURN @extschema@.snowflake_sql_ms_to_ts(epoch_ms + (id >> shift));
END
$fn$;
COMMENT ON FUNCTION @extschema@.snowflake_timestamp(bigint, bigint, integer, integer, integer) IS
    'when an id was made, under the given epoch and layout';

