CREATE OR REPLACE FUNCTION @extschema@.snowflake_drop_partitions(
    table_name regclass,
    older_than timestamptz,
    keep_table boolean DEFAULT false,
    dry_run boolean DEFAULT false)
RETURNS SETOF text
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
SET TimeZone = 'UTC'
SET DateStyle = 'ISO, YMD'
SET IntervalStyle = 'postgres'
AS $drop$
DECLARE
    v_nsp text;
    v_tab text;
    v_last bigint;              -- the largest id made before older_than
    v_stmt text;
    r record;
BEGIN
    IF table_name IS NULL OR older_than IS NULL OR keep_table IS NULL OR dry_run IS NULL THEN
        RAISE EXCEPTION 'snowflake_drop_partitions: % must not be NULL',
            CASE WHEN table_name IS NULL THEN 'table_name' WHEN older_than IS NULL THEN 'older_than'
                 WHEN keep_table IS NULL THEN 'keep_table' ELSE 'dry_run' END
            USING ERRCODE = '22004';
    END IF;
    IF NOT isfinite(older_than) THEN
        RAISE EXCEPTION 'snowflake_drop_partitions: older_than must be finite, not %', older_than
            USING ERRCODE = '22008';
    END IF;

    SELECT t.nsp, t.tab INTO v_nsp, v_tab FROM @extschema@._snowflake_partitioned_table(table_name) t;

    -- A partition is entirely older when every id it can hold (below its
    -- upper bound) was made before older_than.
    v_last := @extschema@.snowflake_max_id_before(older_than);
    IF v_last IS NULL THEN
        RETURN;                 -- older_than is before the epoch: no id is older
    END IF;
    FOR r IN
        SELECT c.relname, (b[2])::bigint AS hi
          FROM pg_catalog.pg_inherits h JOIN pg_catalog.pg_class c ON c.oid = h.inhrelid,
               LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid),
                                    '^FOR VALUES FROM \((MINVALUE|''?-?[0-9]+''?)\) TO \(''?(-?[0-9]+)''?\)$') AS b
         WHERE h.inhparent = table_name AND b IS NOT NULL
         ORDER BY 2, 1
    LOOP
        CONTINUE WHEN r.hi - 1 > v_last;
        IF keep_table THEN
            v_stmt := format('ALTER TABLE %s DETACH PARTITION %s.%I', v_tab, v_nsp, r.relname);
        ELSE
            v_stmt := format('DROP TABLE %s.%I', v_nsp, r.relname);
        END IF;
        IF NOT dry_run THEN
            EXECUTE v_stmt;
        END IF;
        RETURN NEXT v_stmt;
    END LOOP;
END
$drop$;
COMMENT ON FUNCTION @extschema@.snowflake_drop_partitions(regclass, timestamptz, boolean, boolean) IS
    'drop (or with keep_table, detach) the partitions of an id-partitioned table whose ids were all made before older_than';
