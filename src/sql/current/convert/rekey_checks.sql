-- Step 7, re-keying: the tables' rows can be updated, and the old keys are
-- unique.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_rekey_tables(job @extschema@._snowflake_convert_job)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    v_detail text;
    v_first bigint;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_rekey_tables');
    -- Every table whose rows the re-key updates, partitions and children
    -- included.  Triggers and rules on UPDATE would run for every row (an
    -- audit trail of a million updates, an updated_at set to now()), and
    -- forced row security would hide rows from the updates: the caller
    -- decides about them, knowingly.
    SELECT string_agg(line, E'\n' ORDER BY line) INTO v_detail
      FROM (
        WITH RECURSIVE tree(relid) AS (
            SELECT DISTINCT job.w_rel[g] FROM generate_subscripts(job.w_rel, 1) g
            UNION
            SELECT h.inhrelid FROM pg_catalog.pg_inherits h JOIN tree ON h.inhparent = tree.relid),
        qual(oid, name, relkind, rls) AS (
            SELECT c.oid, format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                               ELSE quote_ident(n.nspname) END, c.relname),
                   c.relkind, c.relrowsecurity AND c.relforcerowsecurity
              FROM tree
              JOIN pg_catalog.pg_class c ON c.oid = tree.relid
              JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace)
        SELECT format('trigger %I on table %s fires on UPDATE', tg.tgname, q.name) AS line
          FROM qual q JOIN pg_catalog.pg_trigger tg ON tg.tgrelid = q.oid
         WHERE NOT tg.tgisinternal AND tg.tgenabled <> 'D' AND (tg.tgtype & 16) <> 0
        UNION ALL
        SELECT format('rule %I on table %s applies to UPDATE', rw.rulename, q.name)
          FROM qual q JOIN pg_catalog.pg_rewrite rw ON rw.ev_class = q.oid
         WHERE rw.ev_type = '2' AND rw.ev_enabled <> 'D'
        UNION ALL
        SELECT format('table %s forces row level security', q.name) FROM qual q WHERE q.rls
        UNION ALL
        SELECT format('%s is a foreign table', q.name) FROM qual q WHERE q.relkind = 'f'
      ) x;
    IF v_detail IS NOT NULL THEN
        RAISE EXCEPTION 'cannot re-key column % of table %: updating the rows would do more than change their keys',
                        quote_ident(job.col), job.tab
            USING ERRCODE = '55000',
                  DETAIL = v_detail,
                  HINT = 'Re-keying updates every row. Disable such triggers and rules in the same transaction '
                         '(ALTER TABLE ... DISABLE TRIGGER / DISABLE RULE), convert, and enable them again; '
                         'or convert without time_column.';
    END IF;

    -- The old key says which rows reference which: it must be unique.
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_index x
                    WHERE x.indrelid = job.rel AND x.indisunique AND x.indnkeyatts = 1
                      AND x.indkey[0] = job.attnum AND x.indpred IS NULL AND x.indexprs IS NULL) THEN
        EXECUTE format('SELECT %1$I FROM %2$s WHERE %1$I < $1 GROUP BY 1 HAVING count(*) > 1 ORDER BY 1 LIMIT 1',
                       job.col, job.tab)
           INTO v_first USING job.bound;
        IF v_first IS NOT NULL THEN
            RAISE EXCEPTION 'cannot re-key column % of table %: its values are not unique', quote_ident(job.col), job.tab
                USING ERRCODE = '23505',
                      DETAIL = format('Value %s is in more than one row.', v_first),
                      HINT = 'Each row needs a key of its own: the foreign keys that reference the column are rewritten by its value.';
        END IF;
    END IF;
    RETURN;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_rekey_tables(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: refuse tables a re-key cannot update';
