-- The table time partitions are made for or dropped from: one partitioned
-- by range of a single bigint column.  Its schema and name, quoted (pg_temp
-- for a temporary table), and both together.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_partitioned_table(
    table_name regclass,
    OUT nsp text,
    OUT relname name,
    OUT tab text)
RETURNS record
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $table$
DECLARE
    v_kind "char";
    v_strat "char";
    v_natts int2;
    v_keynum int2;
    v_keytype oid;
    v_opcdefault boolean;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_partitioned_table');
    SELECT c.relkind, c.relname,
           CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp' ELSE quote_ident(n.nspname) END
      INTO v_kind, relname, nsp
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE c.oid = table_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'relation with OID % does not exist', table_name::oid USING ERRCODE = '42P01';
    END IF;
    tab := nsp || '.' || quote_ident(relname);
    IF v_kind <> 'p' THEN
        RAISE EXCEPTION '% is not a partitioned table', tab
            USING ERRCODE = '42809',
                  HINT = 'Time partitions need a table created with PARTITION BY RANGE (id), id being its bigint snowflake id.';
    END IF;
    SELECT pt.partstrat, pt.partnatts, pt.partattrs[0], a.atttypid, opc.opcdefault
      INTO v_strat, v_natts, v_keynum, v_keytype, v_opcdefault
      FROM pg_catalog.pg_partitioned_table pt
      LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = pt.partrelid AND a.attnum = pt.partattrs[0]
      LEFT JOIN pg_catalog.pg_opclass opc ON opc.oid = pt.partclass[0]
     WHERE pt.partrelid = table_name;
    IF v_strat <> 'r' OR v_natts <> 1 OR v_keynum = 0 THEN
        RAISE EXCEPTION '% is not partitioned by range of one column', tab
            USING ERRCODE = '42P17',
                  DETAIL = format('Its partition key is %s.', pg_get_partkeydef(table_name)),
                  HINT = 'Time partitions need PARTITION BY RANGE (id), id being the table''s bigint snowflake id.';
    END IF;
    IF v_keytype <> 'pg_catalog.int8'::regtype OR NOT v_opcdefault THEN
        RAISE EXCEPTION 'the partition key of % is not a bigint column', tab
            USING ERRCODE = '42804',
                  DETAIL = format('Its partition key is %s, of type %s.', pg_get_partkeydef(table_name),
                                  format_type(v_keytype, NULL)),
                  HINT = 'Time partitions need PARTITION BY RANGE (id), id being the table''s bigint snowflake id.';
    END IF;
END
$table$;
COMMENT ON FUNCTION @extschema@._snowflake_partitioned_table(regclass) IS
    'snowflake_create_partitions and snowflake_drop_partitions, internal: check the partitioned table';


-- The range partitions a table has (not its DEFAULT partition): name, and
-- lower and upper id, NULL for MINVALUE (lo_min) or MAXVALUE (hi_max).
CREATE OR REPLACE FUNCTION @extschema@._snowflake_partitions_of(table_name regclass)
RETURNS TABLE (name text, lo bigint, hi bigint, lo_min boolean, hi_max boolean)
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $partitions$
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_partitions_of');
    RETURN QUERY
    SELECT c.relname::text, b[2]::bigint, b[4]::bigint, b[1] = 'MINVALUE', b[3] = 'MAXVALUE'
      FROM pg_catalog.pg_inherits h JOIN pg_catalog.pg_class c ON c.oid = h.inhrelid,
           LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid),
                                '^FOR VALUES FROM \((MINVALUE|''?(-?[0-9]+)''?)\) TO \((MAXVALUE|''?(-?[0-9]+)''?)\)$') AS b
     WHERE h.inhparent = table_name
       AND b IS NOT NULL            -- not the DEFAULT partition
     ORDER BY c.relname;
END
$partitions$;
COMMENT ON FUNCTION @extschema@._snowflake_partitions_of(regclass) IS
    'snowflake_create_partitions, internal: the range partitions a table has';
