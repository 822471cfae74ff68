CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_invalid_id(result_type anyelement, id bigint)
RETURNS anyelement
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    RAISE EXCEPTION 'invalid snowflake id: %', id
        USING ERRCODE = '22023', DETAIL = 'snowflake ids are non-negative';
END
$fn$;

