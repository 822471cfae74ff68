-- Step 10: the statements, in order, and what each is where it is not
-- simply run (job.kinds).
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_statements(job @extschema@._snowflake_convert_job)
RETURNS @extschema@._snowflake_convert_job
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    v_map constant text := 'pg_temp.snowflake_rekey_map';
    v_text text;
    r record;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_statements');
    -- ------------------------------------------------------ statements
    SELECT 'LOCK TABLE ' || string_agg(f.name, ', ' ORDER BY f.first) || ' IN ACCESS EXCLUSIVE MODE;'
      INTO v_text
      FROM (SELECT job.w_name[g] AS name, min(g) AS first
              FROM generate_subscripts(job.w_rel, 1) g
             WHERE g = 1 OR job.w_widen[g] OR job.rekey
             GROUP BY job.w_name[g]) f;
    job.stmts := job.stmts || v_text;
    IF job.source = 'identity' THEN
        job.stmts := job.stmts || format('ALTER TABLE %s ALTER COLUMN %I DROP IDENTITY;', job.tab, job.col);
    END IF;
    -- Re-keying rewrites the keys and the columns that reference them
    -- together, in ranges: their foreign keys are dropped first and added
    -- again at the end, which checks every row once (per-row checks of each
    -- updated key would probe the referencing table, index or not, for every
    -- row).  Before any widening, so that it does not check them too.
    IF job.rekey THEN
        FOR r IN
            SELECT format('ALTER TABLE %s DROP CONSTRAINT %I;', f.name, f.conname) AS stmt
              FROM @extschema@._snowflake_convert_foreign_keys(job) f
             ORDER BY f.n
        LOOP
            job.stmts := job.stmts || r.stmt;
        END LOOP;
    END IF;
    FOR r IN
        SELECT format('ALTER TABLE %s %s;', job.w_name[g],
                      string_agg(format('ALTER COLUMN %I TYPE bigint', job.w_col[g]), ', ' ORDER BY g)) AS stmt
          FROM generate_subscripts(job.w_rel, 1) g
         WHERE job.w_widen[g]
         GROUP BY job.w_name[g]
         ORDER BY min(g)
    LOOP
        job.stmts := job.stmts || r.stmt;
    END LOOP;
    job.kinds := array_fill(''::text, ARRAY[cardinality(job.stmts)]);
    IF job.rekey THEN
        -- In old-key order: the batches read it in ranges of old keys.
        job.stmts := job.stmts || format(E'CREATE TEMP TABLE snowflake_rekey_map ON COMMIT DROP AS\nSELECT * FROM (\n%s\n) k WHERE new_id <> old_id ORDER BY old_id;', job.keys);
        job.kinds := job.kinds || 'map'::text;
        job.stmts := job.stmts || format('CREATE UNIQUE INDEX ON %s (old_id);', v_map);
        job.kinds := job.kinds || ''::text;
        job.stmts := job.stmts || format('ANALYZE %s;', v_map);
        job.kinds := job.kinds || ''::text;
        -- The table of old and new keys the call names, the application's
        -- to translate old keys with: kept until the user drops it.
        IF job.map_table IS NOT NULL THEN
            job.stmts := job.stmts
                || format('CREATE TABLE %s AS SELECT old_id, new_id FROM %s;', job.map_table, v_map)
                || format('ALTER TABLE %s ADD PRIMARY KEY (old_id), ADD UNIQUE (new_id);', job.map_table)
                || format('COMMENT ON TABLE %s IS %L;', job.map_table,
                          format('old and new keys of column %I of table %s, re-keyed from %I', job.col, job.tab, job.tcol)
                          || CASE WHEN job.tz IS NOT NULL THEN format(' read in time zone %s', job.tz) ELSE '' END);
            job.kinds := job.kinds || ARRAY['', '', '']::text[];
        END IF;
        -- One UPDATE per column, on each table that holds rows (the
        -- partitions and children of a partitioned table or parent), joined
        -- with the map: only values that have a new key change.  Where the
        -- table has an index that starts with the column, it runs in ranges
        -- of old keys (each range a join of two index ranges); else in one
        -- statement (a range would read the whole table each time).
        FOR r IN
            WITH RECURSIVE tree(relid, col, g) AS (
                SELECT job.w_rel[g], job.w_col[g], g FROM generate_subscripts(job.w_rel, 1) g
                UNION
                SELECT h.inhrelid, tree.col, tree.g
                  FROM pg_catalog.pg_inherits h JOIN tree ON h.inhparent = tree.relid)
            SELECT tree.relid,
                   format('UPDATE ONLY %s AS t SET %I = m.new_id FROM %s m WHERE m.old_id = t.%I;',
                          format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                               ELSE quote_ident(n.nspname) END, c.relname),
                          tree.col, v_map, tree.col) AS stmt,
                   EXISTS (SELECT 1 FROM pg_catalog.pg_index x
                             JOIN pg_catalog.pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[0]
                             JOIN pg_catalog.pg_class ic ON ic.oid = x.indexrelid
                             JOIN pg_catalog.pg_am am ON am.oid = ic.relam
                            WHERE x.indrelid = tree.relid AND a.attname = tree.col AND x.indisvalid
                              AND x.indpred IS NULL AND am.amname = 'btree') AS ranged
              FROM (SELECT DISTINCT ON (relid, col) relid, col, g FROM tree ORDER BY relid, col, g) tree
              JOIN pg_catalog.pg_class c ON c.oid = tree.relid
              JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
             WHERE c.relkind = 'r'
             ORDER BY tree.g, tree.relid
        LOOP
            job.stmts := job.stmts || r.stmt;
            job.kinds := job.kinds || (CASE WHEN r.ranged THEN 'ranges:' ELSE 'whole:' END || r.relid);
        END LOOP;
        FOR r IN
            SELECT f.name, f.conname, f.def, f.comment
              FROM @extschema@._snowflake_convert_foreign_keys(job) f
             ORDER BY f.n
        LOOP
            job.stmts := job.stmts || format('ALTER TABLE %s ADD CONSTRAINT %I %s;', r.name, r.conname, r.def);
            job.kinds := job.kinds || 'fk'::text;
            IF r.comment IS NOT NULL THEN
                job.stmts := job.stmts || format('COMMENT ON CONSTRAINT %I ON %s IS %L;', r.conname, r.name, r.comment);
                job.kinds := job.kinds || ''::text;
            END IF;
        END LOOP;
    END IF;
    IF job.source <> 'snowflake' THEN
        job.stmts := job.stmts || format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT %s;',
                                     job.tab, job.col, '@extschema@.snowflake_nextval()');
        job.kinds := job.kinds || ''::text;
    END IF;
    IF job.drop_seq THEN
        job.stmts := job.stmts || format('DROP SEQUENCE %s;', job.seq_name);
        job.kinds := job.kinds || ''::text;
    END IF;
    IF job.rekey THEN
        job.stmts := job.stmts || format('DROP TABLE %s;', v_map);
        job.kinds := job.kinds || ''::text;
    END IF;
    RETURN job;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_statements(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: the statements of the conversion';

-- Re-keying: the foreign keys of the chain, in the order found: the table
-- that holds each (qualified and quoted), its name, definition and comment.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_foreign_keys(job @extschema@._snowflake_convert_job)
RETURNS TABLE (n bigint, name text, conname name, def text, comment text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_foreign_keys');
    RETURN QUERY
    SELECT u.n, q.name, con.conname, pg_get_constraintdef(con.oid),
           obj_description(con.oid, 'pg_constraint')
      FROM unnest(job.w_cons) WITH ORDINALITY AS u(oid, n)
      JOIN pg_catalog.pg_constraint con ON con.oid = u.oid
      JOIN LATERAL (SELECT format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                                ELSE quote_ident(ns.nspname) END, c.relname) AS name
                      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace ns ON ns.oid = c.relnamespace
                     WHERE c.oid = con.conrelid) q ON true
     ORDER BY u.n;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_foreign_keys(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: the foreign keys of the chain';
