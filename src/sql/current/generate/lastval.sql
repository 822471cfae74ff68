CREATE FUNCTION @extschema@.snowflake_lastval()
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_lastval'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.snowflake_lastval() IS 'the last id snowflake_nextval() returned in this session';
