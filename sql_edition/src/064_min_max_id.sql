CREATE OR REPLACE FUNCTION @extschema@.snowflake_min_id(ts timestamptz)
RETURNS bigint
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN @extschema@.snowflake_sql_ms_bound(ts, false, (@extschema@.snowflake_sql_settings()).epoch_ms,
                              (@extschema@.snowflake_sql_settings()).datacenter_bits
                              + (@extschema@.snowflake_sql_settings()).worker_bits
                              + (@extschema@.snowflake_sql_settings()).sequence_bits);
COMMENT ON FUNCTION @extschema@.snowflake_min_id(timestamptz) IS 'smallest id any node can make in the millisecond of ts';

CREATE OR REPLACE FUNCTION @extschema@.snowflake_max_id(ts timestamptz)
RETURNS bigint
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN @extschema@.snowflake_sql_ms_bound(ts, true, (@extschema@.snowflake_sql_settings()).epoch_ms,
                              (@extschema@.snowflake_sql_settings()).datacenter_bits
                              + (@extschema@.snowflake_sql_settings()).worker_bits
                              + (@extschema@.snowflake_sql_settings()).sequence_bits);
COMMENT ON FUNCTION @extschema@.snowflake_max_id(timestamptz) IS 'largest id any node can make in the millisecond of ts';

CREATE OR REPLACE FUNCTION @extschema@.snowflake_min_id(
    ts timestamptz, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    RETURN @extschema@.snowflake_sql_ms_bound(ts, false, epoch_ms,
        @extschema@.snowflake_sql_layout_shift(epoch_ms, datacenter_bits, worker_bits, sequence_bits));
END
$fn$;
COMMENT ON FUNCTION @extschema@.snowflake_min_id(timestamptz, bigint, integer, integer, integer) IS
    'smallest id in the millisecond of ts, under the given epoch and layout';

CREATE OR REPLACE FUNCTION @extschema@.snowflake_max_id(
    ts timestamptz, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    RETURN @extschema@.snowflake_sql_ms_bound(ts, true, epoch_ms,
        @extschema@.snowflake_sql_layout_shift(epoch_ms, datacenter_bits, worker_bits, sequence_bits));
END
$fn$;
COMMENT ON FUNCTION @extschema@.snowflake_max_id(timestamptz, bigint, integer, integer, integer) IS
    'largest id in the millisecond of ts, under the given epoch and layout';

