-- The planner support function of the functions below (see
-- src/pg/time_support.cpp).
CREATE FUNCTION @extschema@.snowflake_time_support(internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'snowflake_time_support'
LANGUAGE C STRICT;
