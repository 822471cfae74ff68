-- Raises an error; returns the type of its first argument so that it can
-- stand in any expression.  STABLE, not IMMUTABLE: the planner never runs it
-- to fold constants, so a branch that is not taken never raises.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_raise(
    result_type anyelement, sqlstate text, message text, detail text DEFAULT NULL,
    hint text DEFAULT NULL)
RETURNS anyelement
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    -- An empty DETAIL or HINT would still be printed: leave absent ones out.
    IF detail IS NULL AND hint IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message;
    ELSIF hint IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, DETAIL = detail;
    ELSIF detail IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, HINT = hint;
    END IF;
    RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, DETAIL = detail, HINT = hint;
END
$fn$;

