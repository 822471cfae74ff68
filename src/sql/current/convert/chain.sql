-- Step 4: the chain of columns that reference the column, each checked and
-- (in a real run) locked.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_chain(job @extschema@._snowflake_convert_job)
RETURNS @extschema@._snowflake_convert_job
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    i int;
    r record;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_chain');
    -- --------------------------------- the column and every column that
    -- references it, directly or through a chain of foreign keys.  A
    -- referencing column is followed to the table it is defined in (a
    -- partition's column is changed through its partitioned table).
    job.w_rel := ARRAY[job.rel];
    job.w_col := ARRAY[job.col];
    job.w_widen := ARRAY[job.coltype <> 'int8'::regtype];
    job.w_why := ARRAY[NULL::text];
    job.w_name := ARRAY[job.tab];
    i := 1;
    WHILE i <= cardinality(job.w_rel) LOOP
        -- The tables this changes: must be ours (ALTER TABLE needs the owner
        -- of every table it changes, and of every partition or child it
        -- recurses to).  In a real run, locked before we look for what
        -- references them, so that no foreign key can appear behind our back.
        IF (i = 1 AND job.source <> 'snowflake') OR job.w_widen[i] OR job.rekey THEN
            FOR r IN
                WITH RECURSIVE tree(relid) AS (
                    SELECT job.w_rel[i]
                    UNION
                    SELECT h.inhrelid FROM pg_catalog.pg_inherits h JOIN tree ON h.inhparent = tree.relid)
                SELECT c.oid,
                       format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                            ELSE quote_ident(n.nspname) END, c.relname) AS name
                  FROM tree
                  JOIN pg_catalog.pg_class c ON c.oid = tree.relid
                  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                 WHERE NOT pg_has_role(c.relowner, 'USAGE')
                 ORDER BY c.oid <> job.w_rel[i], c.oid
                 LIMIT 1
            LOOP
                IF r.oid = job.rel THEN
                    RAISE EXCEPTION 'must be owner of table %', r.name USING ERRCODE = '42501';
                END IF;
                RAISE EXCEPTION 'must be owner of table %', r.name
                    USING ERRCODE = '42501',
                          DETAIL = CASE WHEN i = 1 THEN format('Converting column %I of table %s changes its partitions and inheritance children too.',
                                                               job.col, job.tab)
                                        WHEN job.w_widen[i] THEN format('Converting column %I of table %s changes column %I of table %s%s to bigint: %s.',
                                                    job.col, job.tab, job.w_col[i], job.w_name[i],
                                                    CASE WHEN r.oid <> job.w_rel[i] THEN ' and its partitions' ELSE '' END,
                                                    job.w_why[i])
                                        ELSE format('Re-keying column %I of table %s rewrites column %I of table %s%s: %s.',
                                                    job.col, job.tab, job.w_col[i], job.w_name[i],
                                                    CASE WHEN r.oid <> job.w_rel[i] THEN ' and its partitions' ELSE '' END,
                                                    job.w_why[i]) END;
            END LOOP;
            IF NOT job.dry_run THEN
                EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', job.w_name[i]);
            END IF;
        END IF;
        FOR r IN
            WITH RECURSIVE tree(relid) AS (
                SELECT job.w_rel[i]
                UNION
                SELECT h.inhrelid FROM pg_catalog.pg_inherits h JOIN tree ON h.inhparent = tree.relid)
            SELECT DISTINCT con.oid AS conoid, con.conname, con.conrelid, fa.attname AS fk_col
              FROM tree
              JOIN pg_catalog.pg_attribute pa
                ON pa.attrelid = tree.relid AND pa.attname = job.w_col[i] AND NOT pa.attisdropped
              JOIN pg_catalog.pg_constraint con
                ON con.contype = 'f' AND con.conparentid = 0 AND con.confrelid = tree.relid
              JOIN LATERAL unnest(con.confkey, con.conkey) AS k(pk_att, fk_att) ON k.pk_att = pa.attnum
              JOIN pg_catalog.pg_attribute fa ON fa.attrelid = con.conrelid AND fa.attnum = k.fk_att
             ORDER BY con.conrelid, fa.attname, con.conname
        LOOP
            -- Up to the table that defines the column (partition -> root).
            DECLARE
                c_rel oid := r.conrelid;
                c_parent oid;
                c_inh int4;
                c_type oid;
                c_typename text;
                c_why text;
                c_name text;
            BEGIN
                IF NOT r.conoid = ANY (job.w_cons) THEN
                    job.w_cons := job.w_cons || r.conoid;
                END IF;
                LOOP
                    SELECT a.attinhcount INTO c_inh FROM pg_catalog.pg_attribute a
                     WHERE a.attrelid = c_rel AND a.attname = r.fk_col AND NOT a.attisdropped;
                    EXIT WHEN c_inh = 0;
                    SELECT h.inhparent INTO c_parent
                      FROM pg_catalog.pg_inherits h
                      JOIN pg_catalog.pg_attribute a
                        ON a.attrelid = h.inhparent AND a.attname = r.fk_col AND NOT a.attisdropped
                     WHERE h.inhrelid = c_rel ORDER BY h.inhseqno LIMIT 1;
                    EXIT WHEN c_parent IS NULL;
                    c_rel := c_parent;
                END LOOP;
                CONTINUE WHEN EXISTS (SELECT 1 FROM generate_subscripts(job.w_rel, 1) g
                                       WHERE job.w_rel[g] = c_rel AND job.w_col[g] = r.fk_col);
                SELECT a.atttypid, format_type(a.atttypid, a.atttypmod) INTO c_type, c_typename
                  FROM pg_catalog.pg_attribute a
                 WHERE a.attrelid = c_rel AND a.attname = r.fk_col AND NOT a.attisdropped;
                SELECT format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                            ELSE quote_ident(n.nspname) END, c.relname)
                  INTO c_name
                  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                 WHERE c.oid = c_rel;
                c_why := format('it references column %I of table %s (constraint %I)',
                                job.w_col[i], job.w_name[i], r.conname);
                IF c_type NOT IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype) THEN
                    RAISE EXCEPTION 'cannot convert column % of table %: a column that references it is not an integer column',
                                    quote_ident(job.col), job.tab
                        USING ERRCODE = '42804',
                              DETAIL = format('Column %I of table %s has type %s; %s.', r.fk_col, c_name, c_typename, c_why),
                              HINT = 'Change that column to bigint first.';
                END IF;
                job.w_rel := job.w_rel || c_rel;
                job.w_col := job.w_col || r.fk_col;
                job.w_widen := job.w_widen || (c_type <> 'int8'::regtype);
                job.w_why := job.w_why || c_why;
                job.w_name := job.w_name || c_name;
            END;
        END LOOP;
        i := i + 1;
    END LOOP;
    RETURN job;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_chain(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: find, check and lock the chain of referencing columns';
