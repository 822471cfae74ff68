-- Last, re-keying: a NOTICE for every materialized view over a column whose
-- values change (directly or through views): it holds the old keys until
-- it is refreshed.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_matviews(job @extschema@._snowflake_convert_job)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    r record;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_matviews');
    FOR r IN
        WITH RECURSIVE tree(relid, col) AS (
            SELECT job.w_rel[g], job.w_col[g] FROM generate_subscripts(job.w_rel, 1) g
            UNION
            SELECT h.inhrelid, tree.col FROM pg_catalog.pg_inherits h JOIN tree ON h.inhparent = tree.relid),
        cols(relid, attnum) AS (
            SELECT tree.relid, a.attnum
              FROM tree JOIN pg_catalog.pg_attribute a
                ON a.attrelid = tree.relid AND a.attname = tree.col AND NOT a.attisdropped),
        -- Views and materialized views whose query reads those columns, and
        -- those over such views (any of their columns), recursively.
        over(relid, relkind) AS (
            SELECT DISTINCT rw.ev_class, vc.relkind
              FROM cols
              JOIN pg_catalog.pg_depend d
                ON d.classid = 'pg_catalog.pg_rewrite'::regclass
               AND d.refclassid = 'pg_catalog.pg_class'::regclass
               AND d.refobjid = cols.relid AND d.refobjsubid = cols.attnum
              JOIN pg_catalog.pg_rewrite rw ON rw.oid = d.objid
              JOIN pg_catalog.pg_class vc ON vc.oid = rw.ev_class
             WHERE vc.relkind IN ('v', 'm') AND rw.ev_class <> cols.relid
            UNION
            SELECT rw.ev_class, vc.relkind
              FROM over
              JOIN pg_catalog.pg_depend d
                ON d.classid = 'pg_catalog.pg_rewrite'::regclass
               AND d.refclassid = 'pg_catalog.pg_class'::regclass
               AND d.refobjid = over.relid
              JOIN pg_catalog.pg_rewrite rw ON rw.oid = d.objid
              JOIN pg_catalog.pg_class vc ON vc.oid = rw.ev_class
             WHERE over.relkind = 'v' AND vc.relkind IN ('v', 'm') AND rw.ev_class <> over.relid)
        SELECT DISTINCT format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                             ELSE quote_ident(n.nspname) END, c.relname) AS name
          FROM over
          JOIN pg_catalog.pg_class c ON c.oid = over.relid
          JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
         WHERE over.relkind = 'm'
         ORDER BY 1
    LOOP
        RAISE NOTICE 'materialized view % % the old keys of column % of table %', r.name,
                     CASE WHEN job.dry_run THEN 'would hold' ELSE 'holds' END, quote_ident(job.col), job.tab
            USING HINT = format('Refresh it: REFRESH MATERIALIZED VIEW %s;', r.name);
    END LOOP;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_matviews(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: name the materialized views a re-key leaves stale';
