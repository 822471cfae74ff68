-- Internal functions (named _snowflake_*) are steps of the extension's own
-- functions.  They run with the caller's rights, as those functions do (the
-- statements they run are the caller's), so the caller must be able to
-- execute them: PUBLIC keeps EXECUTE, and each refuses to run unless one of
-- the functions it belongs to called it.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_internal(step text, VARIADIC callers regprocedure[])
RETURNS void
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $internal$
DECLARE
    stack text;
BEGIN
    GET DIAGNOSTICS stack = PG_CONTEXT;
    IF NOT EXISTS (SELECT 1 FROM unnest(callers) c
                    WHERE position(format('function %s line ', c) IN stack) > 0) THEN
        RAISE EXCEPTION '% is a step of %, not to be called alone', step,
                        (SELECT string_agg(c::oid::regproc::text, ' and ') FROM unnest(callers) c)
            USING ERRCODE = '42501';
    END IF;
END
$internal$;
COMMENT ON FUNCTION @extschema@._snowflake_internal(text, regprocedure[]) IS
    'internal: refuses a step of a snowflake function called from anywhere else';
