-- Step 9: with job.drop_sequence, whether the old sequence can go.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_sequence(job @extschema@._snowflake_convert_job)
RETURNS @extschema@._snowflake_convert_job
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    v_detail text;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_sequence');
    -- ------------------------------------------- the old sequence
    IF job.drop_sequence AND job.source IN ('serial', 'nextval') THEN
        -- What else uses it: other defaults (the column's own, in the table
        -- and its partitions or children, is replaced), views, functions,
        -- an owner column other than ours.
        SELECT string_agg(line, E'\n' ORDER BY line) INTO v_detail
          FROM (
            WITH RECURSIVE tree(relid) AS (
                SELECT job.rel
                UNION
                SELECT h.inhrelid FROM pg_catalog.pg_inherits h JOIN tree ON h.inhparent = tree.relid),
            ours AS (
                SELECT ad.oid FROM tree
                  JOIN pg_catalog.pg_attribute a
                    ON a.attrelid = tree.relid AND a.attname = job.col AND NOT a.attisdropped
                  JOIN pg_catalog.pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum)
            SELECT CASE WHEN d.classid = 'pg_catalog.pg_attrdef'::regclass THEN
                          (SELECT format('default of column %I of table %s', a.attname,
                                         format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                                              ELSE quote_ident(n.nspname) END, c.relname))
                             FROM pg_catalog.pg_attrdef ad
                             JOIN pg_catalog.pg_attribute a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum
                             JOIN pg_catalog.pg_class c ON c.oid = ad.adrelid
                             JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                            WHERE ad.oid = d.objid)
                        ELSE pg_describe_object(d.classid, d.objid, d.objsubid) END
                   || ' uses it' AS line   -- e.g. "default of column id of table public.t uses it"
              FROM pg_catalog.pg_depend d
             WHERE d.refclassid = 'pg_catalog.pg_class'::regclass AND d.refobjid = job.seq
               AND d.deptype = 'n'
               AND NOT (d.classid = 'pg_catalog.pg_attrdef'::regclass AND d.objid IN (SELECT oid FROM ours))
            UNION ALL
            SELECT format('column %I of table %s owns it', a.attname,
                          format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                               ELSE quote_ident(n.nspname) END, c.relname))
              FROM pg_catalog.pg_depend d
              JOIN pg_catalog.pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
              JOIN pg_catalog.pg_class c ON c.oid = d.refobjid
              JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
             WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = job.seq
               AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.deptype = 'a'
               AND NOT (d.refobjid = job.rel AND d.refobjsubid = job.attnum)
          ) users;
        IF v_detail IS NOT NULL THEN
            job.kept_detail := v_detail;      -- said once every check has passed
        ELSIF NOT (SELECT pg_has_role(c.relowner, 'USAGE') FROM pg_catalog.pg_class c WHERE c.oid = job.seq) THEN
            RAISE EXCEPTION 'must be owner of sequence %', job.seq_name
                USING ERRCODE = '42501',
                      HINT = 'Convert without drop_sequence, and let the sequence''s owner drop it.';
        ELSE
            job.drop_seq := true;
        END IF;
    END IF;
    RETURN job;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_sequence(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: whether drop_sequence can drop the old sequence';
