-- snowflake 1.4 -> 1.5.
\echo Use "ALTER EXTENSION snowflake UPDATE TO '1.5'" to load this file. \quit

-- ===========================================================================
-- snowflake_lastval and snowflake_make_id
--
-- snowflake_lastval(): the last id snowflake_nextval() returned in this
-- session, as lastval() is to nextval(); an error before the first.  The
-- value lives in the session's own process: PARALLEL RESTRICTED.
--
-- snowflake_make_id(ts, datacenter_id, worker_id, sequence): the inverse of
-- snowflake_parse under the server's epoch and layout, for tests, fixtures
-- and re-keying by hand.  An id made this way carries no uniqueness promise.
-- ===========================================================================
CREATE FUNCTION @extschema@.snowflake_lastval()
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_lastval'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.snowflake_lastval() IS 'the last id snowflake_nextval() returned in this session';

CREATE FUNCTION @extschema@.snowflake_make_id(
    ts timestamptz, datacenter_id integer, worker_id integer, sequence integer)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_make_id'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_make_id(timestamptz, integer, integer, integer) IS 'the id of these parts under the server''s epoch and layout (no uniqueness promise)';
-- ===========================================================================
-- end of snowflake_lastval and snowflake_make_id
-- ===========================================================================
