-- The C extension's error for a negative id, as a statement
-- (snowflake_sql_invalid_id) or where an expression of type timestamptz
-- stands (snowflake_sql_invalid_id_ts).  One type each, no default argument
-- (021_raise.sql says why).
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_invalid_id(id bigint)
RETURNS void
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    RAISE EXCEPTION 'invalid snowflake id: %', id
        USING ERRCODE = '22023', DETAIL = 'snowflake ids are non-negative';
END
$fn$;

CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_invalid_id_ts(id bigint)
RETURNS timestamptz
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    PERFORM @extschema@.snowflake_sql_invalid_id(id);
    RETURN NULL;
END
$fn$;
