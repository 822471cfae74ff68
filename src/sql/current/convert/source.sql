-- Step 2: where the column's values come from (identity, serial, nextval
-- or snowflake already), and its sequence.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_source(job @extschema@._snowflake_convert_job)
RETURNS @extschema@._snowflake_convert_job
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    v_attrdef oid;
    v_text text;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_source');
    -- ------------------------------------------- where the values come from
    IF job.col_identity <> '' THEN
        job.source := 'identity';
        SELECT d.objid INTO job.seq
          FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class s ON s.oid = d.objid
         WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.refclassid = 'pg_catalog.pg_class'::regclass
           AND d.refobjid = job.rel AND d.refobjsubid = job.attnum AND d.deptype = 'i' AND s.relkind = 'S';
    ELSE
        SELECT ad.oid, pg_get_expr(ad.adbin, ad.adrelid) INTO v_attrdef, job.default_expr
          FROM pg_catalog.pg_attrdef ad WHERE ad.adrelid = job.rel AND ad.adnum = job.attnum;
        IF job.default_expr IS NULL THEN
            v_text := 'It has no default.';
        ELSIF EXISTS (SELECT 1 FROM pg_catalog.pg_depend d
                       WHERE d.classid = 'pg_catalog.pg_attrdef'::regclass AND d.objid = v_attrdef
                         AND d.refclassid = 'pg_catalog.pg_proc'::regclass
                         AND d.refobjid = '@extschema@.snowflake_nextval()'::regprocedure)
              AND job.default_expr ~ '^([^(]*\.)?snowflake_nextval\(\)$' THEN
            job.source := 'snowflake';
        ELSIF job.default_expr ~ '^nextval\(''.*''::regclass\)$' THEN
            SELECT min(d.refobjid) INTO job.seq
              FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class s ON s.oid = d.refobjid
             WHERE d.classid = 'pg_catalog.pg_attrdef'::regclass AND d.objid = v_attrdef
               AND d.refclassid = 'pg_catalog.pg_class'::regclass AND s.relkind = 'S';
            IF job.seq IS NOT NULL THEN
                job.source := CASE WHEN EXISTS (
                                    SELECT 1 FROM pg_catalog.pg_depend d
                                     WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = job.seq
                                       AND d.refclassid = 'pg_catalog.pg_class'::regclass
                                       AND d.refobjid = job.rel AND d.refobjsubid = job.attnum
                                       AND d.deptype = 'a')
                                 THEN 'serial' ELSE 'nextval' END;
            END IF;
        END IF;
        IF job.source IS NULL THEN
            RAISE EXCEPTION 'column % of table % is not a serial, identity or nextval() column',
                            quote_ident(job.col), job.tab
                USING ERRCODE = '55000',
                      DETAIL = coalesce(v_text, format('Its default is %s.', job.default_expr)),
                      HINT = 'snowflake_convert_column converts columns whose values come from a sequence. '
                             'To give another column snowflake ids, set its default by hand.';
        END IF;
    END IF;
    IF job.seq IS NOT NULL THEN
        SELECT format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                    ELSE quote_ident(n.nspname) END, c.relname)
          INTO job.seq_name
          FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
         WHERE c.oid = job.seq;
    END IF;
    RETURN job;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_source(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: where the column''s values come from';
