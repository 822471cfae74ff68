CREATE FUNCTION @extschema@.snowflake_start_above(id bigint)
RETURNS void
AS 'MODULE_PATHNAME', 'snowflake_start_above'
LANGUAGE C VOLATILE STRICT;
REVOKE ALL ON FUNCTION @extschema@.snowflake_start_above(bigint) FROM PUBLIC;
COMMENT ON FUNCTION @extschema@.snowflake_start_above(bigint) IS
    'make every later id of this node greater than id (superuser only)';
