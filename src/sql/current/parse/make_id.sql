CREATE FUNCTION @extschema@.snowflake_make_id(
    ts timestamptz, datacenter_id integer, worker_id integer, sequence integer)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_make_id'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_make_id(timestamptz, integer, integer, integer) IS 'the id of these parts under the server''s epoch and layout (no uniqueness promise)';
