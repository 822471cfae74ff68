-- ===========================================================================
-- Helpers
-- ===========================================================================

CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_version()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN '@SNOWFLAKE_SQL_VERSION@';
COMMENT ON FUNCTION @extschema@.snowflake_sql_version() IS 'version of the snowflake SQL edition installed here';

