-- Step 1: the table, the column and the time column exist and can be
-- converted; their names as statements and messages write them.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_target(job @extschema@._snowflake_convert_job)
RETURNS @extschema@._snowflake_convert_job
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    v_generated "char";
    v_inhcount int4;
    v_ispartition boolean;
    v_persistence "char";
    v_relkind "char";
    v_relnsp oid;
    v_text text;
    v_ttype oid;
    v_ttypename text;
    table_name oid := job.rel;
    column_name name := job.col;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_target');
    -- ---------------------------------------------------------------- inputs
    IF table_name IS NULL OR column_name IS NULL OR job.dry_run IS NULL OR job.drop_sequence IS NULL
       OR job.tz IS NULL OR job.late_ids IS NULL THEN
        RAISE EXCEPTION 'snowflake_convert_column: % must not be NULL',
            CASE WHEN table_name IS NULL THEN 'table_name'
                 WHEN column_name IS NULL THEN 'column_name'
                 WHEN job.dry_run IS NULL THEN 'dry_run'
                 WHEN job.drop_sequence IS NULL THEN 'drop_sequence'
                 WHEN job.tz IS NULL THEN 'time_zone'
                 ELSE 'late_rows' END
            USING ERRCODE = '22004';
    END IF;

    SELECT c.relkind, c.relpersistence, c.relnamespace, c.relispartition,
           format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                ELSE quote_ident(n.nspname) END, c.relname)
      INTO v_relkind, v_persistence, v_relnsp, v_ispartition, job.tab
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE c.oid = job.rel;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'relation with OID % does not exist', job.rel::oid
            USING ERRCODE = '42P01';
    END IF;
    IF v_relkind NOT IN ('r', 'p') THEN
        RAISE EXCEPTION '% is not a table', job.tab
            USING ERRCODE = '42809',
                  DETAIL = format('It is %s; snowflake_convert_column converts columns of tables and partitioned tables.',
                                  CASE v_relkind WHEN 'v' THEN 'a view' WHEN 'm' THEN 'a materialized view'
                                                 WHEN 'S' THEN 'a sequence' WHEN 'f' THEN 'a foreign table'
                                                 WHEN 'i' THEN 'an index' WHEN 'I' THEN 'a partitioned index'
                                                 WHEN 'c' THEN 'a composite type' WHEN 't' THEN 'a TOAST table'
                                                 ELSE 'not a table' END);
    END IF;
    IF v_persistence = 't' AND v_relnsp <> pg_my_temp_schema() THEN
        RAISE EXCEPTION 'cannot convert temporary tables of other sessions'
            USING ERRCODE = '0A000';
    END IF;
    IF v_ispartition THEN
        SELECT format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                    ELSE quote_ident(n.nspname) END, c.relname)
          INTO v_text
          FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
         WHERE c.oid = pg_partition_root(job.rel);
        RAISE EXCEPTION 'cannot convert a column of % alone: it is a partition of %', job.tab, v_text
            USING ERRCODE = '0A000',
                  HINT = format('Convert the partitioned table, which converts all its partitions: SELECT snowflake_convert_column(%L, %L);',
                                v_text, job.col);
    END IF;

    SELECT a.attnum, a.atttypid, format_type(a.atttypid, a.atttypmod), a.attidentity,
           a.attgenerated, a.attinhcount
      INTO job.attnum, job.coltype, job.typename, job.col_identity, v_generated, v_inhcount
      FROM pg_catalog.pg_attribute a
     WHERE a.attrelid = job.rel AND a.attname = job.col AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'column % of table % does not exist', quote_ident(job.col), job.tab
            USING ERRCODE = '42703',
                  HINT = 'The column name is taken as it is written, case and all, without quotes.';
    END IF;
    IF job.attnum < 0 THEN
        RAISE EXCEPTION 'cannot convert system column %', quote_ident(job.col)
            USING ERRCODE = '0A000';
    END IF;
    IF job.coltype NOT IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype) THEN
        RAISE EXCEPTION 'column % of table % is not an integer column', quote_ident(job.col), job.tab
            USING ERRCODE = '42804',
                  DETAIL = format('Its type is %s; snowflake_convert_column converts smallint, integer and bigint columns.',
                                  job.typename);
    END IF;
    IF v_inhcount > 0 THEN
        SELECT format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                    ELSE quote_ident(n.nspname) END, c.relname)
          INTO v_text
          FROM pg_catalog.pg_inherits h
          JOIN pg_catalog.pg_class c ON c.oid = h.inhparent
          JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
         WHERE h.inhrelid = job.rel
         ORDER BY h.inhseqno LIMIT 1;
        RAISE EXCEPTION 'cannot convert inherited column % of table %', quote_ident(job.col), job.tab
            USING ERRCODE = '0A000',
                  DETAIL = format('The column is inherited from %s.', v_text),
                  HINT = format('Convert the column of %s, which converts its children too.', v_text);
    END IF;
    IF v_generated <> '' THEN
        RAISE EXCEPTION 'column % of table % is a generated column', quote_ident(job.col), job.tab
            USING ERRCODE = '0A000';
    END IF;
    IF job.rekey THEN
        SELECT a.atttypid, format_type(a.atttypid, a.atttypmod) INTO v_ttype, v_ttypename
          FROM pg_catalog.pg_attribute a
         WHERE a.attrelid = job.rel AND a.attname = job.tcol AND a.attnum > 0 AND NOT a.attisdropped;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'time column % of table % does not exist', quote_ident(job.tcol), job.tab
                USING ERRCODE = '42703',
                      HINT = 'time_column names a column of the same table, taken as it is written, case and all, without quotes.';
        END IF;
        IF job.tcol = job.col THEN
            RAISE EXCEPTION 'time column % of table % is the column to convert', quote_ident(job.tcol), job.tab
                USING ERRCODE = '22023',
                      HINT = 'time_column names the column that holds when each row was made.';
        END IF;
        IF v_ttype NOT IN ('timestamptz'::regtype, 'timestamp'::regtype) THEN
            RAISE EXCEPTION 'time column % of table % is not a timestamp column', quote_ident(job.tcol), job.tab
                USING ERRCODE = '42804',
                      DETAIL = format('Its type is %s; the new ids are made from a timestamp with time zone or timestamp without time zone column.',
                                      v_ttypename),
                      HINT = 'Add a timestamptz column computed from it, and give that one.';
        END IF;
        -- A timestamp without time zone is read in the zone the call names
        -- (UTC unless told), never in the session's TimeZone: a second run
        -- reads it as the first did.  (AT TIME ZONE refuses a zone it does
        -- not know, 22023.)
        IF v_ttype = 'timestamptz'::regtype THEN
            job.tz := NULL;
            job.tcx := quote_ident(job.tcol);
        ELSE
            PERFORM now() AT TIME ZONE job.tz;
            job.tcx := format('(%I AT TIME ZONE %L)', job.tcol, job.tz);
        END IF;
        IF job.map_table IS NOT NULL THEN
            -- A name without a schema goes into the table's schema.
            SELECT string_agg(quote_ident(p.part), '.' ORDER BY p.n), count(*)
              INTO job.map_table, v_inhcount
              FROM unnest(parse_ident(job.map_table)) WITH ORDINALITY AS p(part, n);
            IF v_inhcount = 1 THEN
                job.map_table := (SELECT CASE WHEN v_relnsp = pg_my_temp_schema() THEN 'pg_temp'
                                              ELSE quote_ident(n.nspname) END
                                    FROM pg_catalog.pg_namespace n WHERE n.oid = v_relnsp)
                                 || '.' || job.map_table;
            END IF;
            IF to_regclass(job.map_table) IS NOT NULL THEN
                RAISE EXCEPTION 'relation % already exists', job.map_table
                    USING ERRCODE = '42P07',
                          HINT = 'map_table names a new table, which the conversion creates and fills with the old and new keys.';
            END IF;
        END IF;
    END IF;
    RETURN job;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_target(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: check the table, the column and the time column';
