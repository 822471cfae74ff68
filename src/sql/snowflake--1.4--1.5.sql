-- snowflake 1.4 -> 1.5.
\echo Use "ALTER EXTENSION snowflake UPDATE TO '1.5'" to load this file. \quit

-- ===========================================================================
-- Moving from the SQL edition: snowflake_start_above (docs/managed.md)
--
-- snowflake_start_above(id): every id this node issues after the call is
-- greater than id, across a crash too (the durable mark covers it before the
-- call returns).  A node that takes over from the SQL edition -- which may
-- have borrowed ahead of the clock just before -- starts above its last id
-- in one step: snowflake_start_above(the other node's
-- snowflake_max_id(durable_mark)).  The SQL edition has the same function
-- for the move the other way.  Superuser only.
-- ===========================================================================
CREATE FUNCTION @extschema@.snowflake_start_above(id bigint)
RETURNS void
AS 'MODULE_PATHNAME', 'snowflake_start_above'
LANGUAGE C VOLATILE STRICT;
REVOKE ALL ON FUNCTION @extschema@.snowflake_start_above(bigint) FROM PUBLIC;
COMMENT ON FUNCTION @extschema@.snowflake_start_above(bigint) IS
    'make every later id of this node greater than id (superuser only)';
-- ===========================================================================
-- end of moving from the SQL edition
-- ===========================================================================
