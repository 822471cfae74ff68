-- Step 2: where the column's values come from (identity, serial, nextval
-- or snowflake already), and its sequence.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_source(job @extschema@._snowflake_convert_job)
RETURNS @extschema@._snowflake_convert_job
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    v_rel oid := job.rel;
    v_col name := job.col;
    v_tab text := job.tab;
    v_attnum int2 := job.attnum;
    v_identity "char" := job.col_identity;
    v_default text := job.default_expr;
    v_source text := job.source;
    v_seq oid := job.seq;
    v_seq_name text := job.seq_name;
    v_attrdef oid;
    v_text text;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_source',
        '@extschema@.snowflake_convert_column(regclass,name,boolean,boolean,name)');
    -- ------------------------------------------- where the values come from
    IF v_identity <> '' THEN
        v_source := 'identity';
        SELECT d.objid INTO v_seq
          FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class s ON s.oid = d.objid
         WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.refclassid = 'pg_catalog.pg_class'::regclass
           AND d.refobjid = v_rel AND d.refobjsubid = v_attnum AND d.deptype = 'i' AND s.relkind = 'S';
    ELSE
        SELECT ad.oid, pg_get_expr(ad.adbin, ad.adrelid) INTO v_attrdef, v_default
          FROM pg_catalog.pg_attrdef ad WHERE ad.adrelid = v_rel AND ad.adnum = v_attnum;
        IF v_default IS NULL THEN
            v_text := 'It has no default.';
        ELSIF EXISTS (SELECT 1 FROM pg_catalog.pg_depend d
                       WHERE d.classid = 'pg_catalog.pg_attrdef'::regclass AND d.objid = v_attrdef
                         AND d.refclassid = 'pg_catalog.pg_proc'::regclass
                         AND d.refobjid = '@extschema@.snowflake_nextval()'::regprocedure)
              AND v_default ~ '^([^(]*\.)?snowflake_nextval\(\)$' THEN
            v_source := 'snowflake';
        ELSIF v_default ~ '^nextval\(''.*''::regclass\)$' THEN
            SELECT min(d.refobjid) INTO v_seq
              FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class s ON s.oid = d.refobjid
             WHERE d.classid = 'pg_catalog.pg_attrdef'::regclass AND d.objid = v_attrdef
               AND d.refclassid = 'pg_catalog.pg_class'::regclass AND s.relkind = 'S';
            IF v_seq IS NOT NULL THEN
                v_source := CASE WHEN EXISTS (
                                    SELECT 1 FROM pg_catalog.pg_depend d
                                     WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = v_seq
                                       AND d.refclassid = 'pg_catalog.pg_class'::regclass
                                       AND d.refobjid = v_rel AND d.refobjsubid = v_attnum
                                       AND d.deptype = 'a')
                                 THEN 'serial' ELSE 'nextval' END;
            END IF;
        END IF;
        IF v_source IS NULL THEN
            RAISE EXCEPTION 'column % of table % is not a serial, identity or nextval() column',
                            quote_ident(v_col), v_tab
                USING ERRCODE = '55000',
                      DETAIL = coalesce(v_text, format('Its default is %s.', v_default)),
                      HINT = 'snowflake_convert_column converts columns whose values come from a sequence. '
                             'To give another column snowflake ids, set its default by hand.';
        END IF;
    END IF;
    IF v_seq IS NOT NULL THEN
        SELECT format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                    ELSE quote_ident(n.nspname) END, c.relname)
          INTO v_seq_name
          FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
         WHERE c.oid = v_seq;
    END IF;
    job.source := v_source;
    job.seq := v_seq;
    job.seq_name := v_seq_name;
    job.default_expr := v_default;
    RETURN job;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_source(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: where the column''s values come from';
