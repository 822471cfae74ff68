-- Step 6: refuse what PostgreSQL cannot change: a partition key column.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_partition_keys(job @extschema@._snowflake_convert_job)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    i int;
    r record;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_partition_keys');
    -- ------------------------------------- columns that cannot change type
    FOR i IN 1 .. cardinality(job.w_rel) LOOP
        CONTINUE WHEN NOT job.w_widen[i] AND NOT job.rekey;
        -- A partition key column cannot change its type, and re-keying one
        -- would move rows between partitions.
        FOR r IN
            WITH RECURSIVE tree(relid) AS (
                SELECT job.w_rel[i]
                UNION
                SELECT h.inhrelid FROM pg_catalog.pg_inherits h JOIN tree ON h.inhparent = tree.relid)
            SELECT format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                        ELSE quote_ident(n.nspname) END, c.relname) AS name
              FROM tree
              JOIN pg_catalog.pg_partitioned_table pt ON pt.partrelid = tree.relid
              JOIN pg_catalog.pg_attribute a
                ON a.attrelid = tree.relid AND a.attname = job.w_col[i] AND NOT a.attisdropped
              JOIN pg_catalog.pg_class c ON c.oid = tree.relid
              JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
             WHERE a.attnum = ANY (pt.partattrs::int2[])
                -- a column used in a partition key expression
                OR EXISTS (SELECT 1 FROM pg_catalog.pg_depend d
                            WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = tree.relid
                              AND d.objsubid = a.attnum
                              AND d.refclassid = 'pg_catalog.pg_class'::regclass
                              AND d.refobjid = tree.relid AND d.refobjsubid = 0
                              AND d.deptype = 'i')
             LIMIT 1
        LOOP
            RAISE EXCEPTION 'cannot % column % of table %: %',
                            CASE WHEN job.w_widen[i] THEN 'convert' ELSE 're-key' END, quote_ident(job.col), job.tab,
                            CASE WHEN i = 1 THEN format('it is part of the partition key of %s', r.name)
                                 WHEN job.w_widen[i] THEN format('it must widen column %I of table %s, which is part of the partition key of %s',
                                                             job.w_col[i], job.w_name[i], r.name)
                                 ELSE format('it rewrites column %I of table %s, which is part of the partition key of %s',
                                             job.w_col[i], job.w_name[i], r.name) END
                USING ERRCODE = '0A000',
                      DETAIL = CASE WHEN i = 1 AND job.w_widen[i] THEN format('Converting it changes its type from %s to bigint, and PostgreSQL cannot change the type of a partition key column.', job.typename)
                                    WHEN i = 1 THEN 'Re-keying it changes its values, which would move rows between partitions.'
                                    WHEN job.w_widen[i] THEN format('Converting it changes column %I of table %s to bigint: %s. PostgreSQL cannot change the type of a partition key column.',
                                                job.w_col[i], job.w_name[i], job.w_why[i])
                                    ELSE format('Re-keying it rewrites column %I of table %s: %s. That would move rows between partitions.',
                                                job.w_col[i], job.w_name[i], job.w_why[i]) END,
                      HINT = CASE WHEN job.w_widen[i] THEN 'Partition the table by a bigint column, or convert a table that is partitioned by another column.'
                                  ELSE 'Convert without time_column, or re-key a table that is partitioned by another column.' END;
        END LOOP;
    END LOOP;
    RETURN;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_partition_keys(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: refuse partition key columns';

-- Step 6: refuse what PostgreSQL cannot change: objects that depend on a
-- column that changes type.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_dependents(job @extschema@._snowflake_convert_job)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    v_detail text;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_dependents');
    -- Views, rules, triggers, policies, SQL-body functions, publication
    -- column lists and WHERE clauses, and generated columns on a column that
    -- changes type block ALTER COLUMN TYPE, and so does a column of another
    -- table typed with the table's row type.
    SELECT string_agg(line, E'\n' ORDER BY line) INTO v_detail
      FROM (
        WITH RECURSIVE tree(relid, col) AS (
            SELECT job.w_rel[g], job.w_col[g] FROM generate_subscripts(job.w_rel, 1) g WHERE job.w_widen[g]
            UNION
            SELECT h.inhrelid, tree.col FROM pg_catalog.pg_inherits h JOIN tree ON h.inhparent = tree.relid),
        cols AS (
            SELECT tree.relid, a.attnum, a.attname,
                   format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                        ELSE quote_ident(n.nspname) END, c.relname) AS tab,
                   c.reltype
              FROM tree
              JOIN pg_catalog.pg_attribute a
                ON a.attrelid = tree.relid AND a.attname = tree.col AND NOT a.attisdropped
              JOIN pg_catalog.pg_class c ON c.oid = tree.relid
              JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace),
        qual(oid, name) AS (
            SELECT c.oid, format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                               ELSE quote_ident(n.nspname) END, c.relname)
              FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace)
        SELECT DISTINCT
               CASE d.classid
                 WHEN 'pg_catalog.pg_rewrite'::regclass THEN
                   (SELECT CASE WHEN rw.rulename = '_RETURN'
                                THEN CASE vc.relkind WHEN 'm' THEN 'materialized view ' ELSE 'view ' END || q.name
                                ELSE format('rule %I on table %s', rw.rulename, q.name) END
                      FROM pg_catalog.pg_rewrite rw
                      JOIN pg_catalog.pg_class vc ON vc.oid = rw.ev_class
                      JOIN qual q ON q.oid = rw.ev_class
                     WHERE rw.oid = d.objid)
                 WHEN 'pg_catalog.pg_trigger'::regclass THEN
                   (SELECT format('trigger %I on table %s', tg.tgname, q.name)
                      FROM pg_catalog.pg_trigger tg JOIN qual q ON q.oid = tg.tgrelid WHERE tg.oid = d.objid)
                 WHEN 'pg_catalog.pg_policy'::regclass THEN
                   (SELECT format('policy %I on table %s', po.polname, q.name)
                      FROM pg_catalog.pg_policy po JOIN qual q ON q.oid = po.polrelid WHERE po.oid = d.objid)
                 WHEN 'pg_catalog.pg_proc'::regclass THEN
                   format('function %s', d.objid::regprocedure)
                 WHEN 'pg_catalog.pg_publication_rel'::regclass THEN
                   (SELECT format('publication %I (its column list or WHERE clause)', pub.pubname)
                      FROM pg_catalog.pg_publication_rel pr
                      JOIN pg_catalog.pg_publication pub ON pub.oid = pr.prpubid
                     WHERE pr.oid = d.objid)
                 ELSE
                   (SELECT format('generated column %I of table %s', ga.attname, q.name)
                      FROM pg_catalog.pg_attrdef ad
                      JOIN pg_catalog.pg_attribute ga ON ga.attrelid = ad.adrelid AND ga.attnum = ad.adnum
                      JOIN qual q ON q.oid = ad.adrelid
                     WHERE ad.oid = d.objid)
               END || format(' depends on column %I of table %s', cols.attname, cols.tab) AS line
          FROM cols
          JOIN pg_catalog.pg_depend d
            ON d.refclassid = 'pg_catalog.pg_class'::regclass AND d.refobjid = cols.relid
           AND d.refobjsubid = cols.attnum
         WHERE d.classid IN ('pg_catalog.pg_rewrite'::regclass, 'pg_catalog.pg_trigger'::regclass,
                             'pg_catalog.pg_policy'::regclass, 'pg_catalog.pg_proc'::regclass,
                             'pg_catalog.pg_publication_rel'::regclass)
            OR (d.classid = 'pg_catalog.pg_attrdef'::regclass
                AND EXISTS (SELECT 1 FROM pg_catalog.pg_attrdef ad
                             WHERE ad.oid = d.objid AND ad.adnum <> cols.attnum))
        UNION
        SELECT DISTINCT format('column %I of table %s has the row type of table %s', ua.attname, q.name, cols.tab)
          FROM cols
          JOIN pg_catalog.pg_attribute ua ON ua.atttypid = cols.reltype AND NOT ua.attisdropped
          JOIN qual q ON q.oid = ua.attrelid
      ) deps;
    IF v_detail IS NOT NULL THEN
        RAISE EXCEPTION 'cannot convert column % of table %: other objects depend on the columns it widens to bigint',
                        quote_ident(job.col), job.tab
            USING ERRCODE = '2BP01',
                  DETAIL = v_detail,
                  HINT = 'PostgreSQL cannot change the type of a column that views, rules and the like depend on. '
                         'Drop them, convert, and create them again, in one transaction.';
    END IF;
    RETURN;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_dependents(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: refuse columns that other objects depend on';
