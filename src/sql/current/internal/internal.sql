-- Internal functions (named _snowflake_*) are steps of the extension's own
-- functions.  They run with the caller's rights, as those functions do (the
-- statements they run are the caller's), so the caller must be able to
-- execute them: PUBLIC keeps EXECUTE, and each refuses to run unless a
-- function it belongs to called it, as this guard lists them.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_internal(step text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $internal$
DECLARE
    create_partitions constant text :=
        '@extschema@.snowflake_create_partitions(regclass,timestamptz,timestamptz,interval,text,boolean)';
    callers regprocedure[] := CASE
        WHEN step LIKE '\_snowflake\_convert\_%' THEN
            ARRAY['@extschema@.snowflake_convert_column(regclass,name,boolean,boolean,name,text,text,text)'::regprocedure]
        WHEN step = '_snowflake_partitions_of' THEN
            ARRAY[create_partitions::regprocedure]
        WHEN step = '_snowflake_partitioned_table' THEN
            ARRAY[create_partitions::regprocedure,
                  '@extschema@.snowflake_drop_partitions(regclass,timestamptz,boolean,boolean)'::regprocedure]
        END;
    stack text;
BEGIN
    GET DIAGNOSTICS stack = PG_CONTEXT;
    IF NOT EXISTS (SELECT 1 FROM unnest(callers) c
                    WHERE position(format('function %s line ', c) IN stack) > 0) THEN
        RAISE EXCEPTION '% is a step of %, not to be called alone', step,
                        coalesce((SELECT string_agg(c::oid::regproc::text, ' and ') FROM unnest(callers) c),
                                 'no function')
            USING ERRCODE = '42501';
    END IF;
END
$internal$;
COMMENT ON FUNCTION @extschema@._snowflake_internal(text) IS
    'internal: refuses a step of a snowflake function called from anywhere else';
