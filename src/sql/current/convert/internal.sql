-- The steps of snowflake_convert_column are its own.  They run with the
-- caller's rights, as the converter does (its ALTER TABLEs are the caller's),
-- so the caller must be able to execute them: PUBLIC keeps EXECUTE, and each
-- step refuses to run unless snowflake_convert_column called it.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_internal(step text)
RETURNS void
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $internal$
DECLARE
    stack text;
BEGIN
    GET DIAGNOSTICS stack = PG_CONTEXT;
    IF position(format('function %s line ',
                       '@extschema@.snowflake_convert_column(regclass,name,boolean,boolean,name)'::regprocedure)
                IN stack) = 0 THEN
        RAISE EXCEPTION '% is a step of snowflake_convert_column, not to be called alone', step
            USING ERRCODE = '42501',
                  HINT = 'Call snowflake_convert_column.';
    END IF;
END
$internal$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_internal(text) IS
    'snowflake_convert_column, internal: refuses a step called from anywhere else';
