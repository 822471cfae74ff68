-- snowflake 1.3 -> 1.4.
\echo Use "ALTER EXTENSION snowflake UPDATE TO '1.4'" to load this file. \quit

-- ===========================================================================
-- snowflake_status: identity_source
--
-- Where the node identity in use comes from: 'configured' (the settings),
-- 'kept' (a configured value kept after its setting was removed from the
-- configuration: a reload never changes the identity by omission),
-- 'registry' (a claim from snowflake.registry) or 'none'.
-- ===========================================================================
DROP VIEW @extschema@.snowflake_status;
DROP FUNCTION @extschema@.snowflake_status();

CREATE FUNCTION @extschema@.snowflake_status(
    OUT epoch timestamptz,
    OUT timestamp_bits integer,
    OUT datacenter_bits integer,
    OUT worker_bits integer,
    OUT sequence_bits integer,
    OUT datacenter_id integer,
    OUT worker_id integer,
    OUT clock_backward_policy text,
    OUT max_clock_backward_ms integer,
    OUT random_sequence_start boolean,
    OUT last_id bigint,
    OUT ids_issued bigint,
    OUT sequence_exhaustions bigint,
    OUT clock_backward_events bigint,
    OUT max_clock_backward_step_ms bigint,
    OUT borrowed_ahead_ms bigint,
    OUT durable_mark timestamptz,
    OUT durable_writes bigint,
    OUT lifetime_end timestamptz,
    OUT identity_source text)
RETURNS record
AS 'MODULE_PATHNAME', 'snowflake_status'
LANGUAGE C VOLATILE PARALLEL SAFE;

CREATE VIEW @extschema@.snowflake_status AS SELECT * FROM @extschema@.snowflake_status();
COMMENT ON VIEW @extschema@.snowflake_status IS 'the generator of this node: layout, identity, counters, durable mark';

-- ===========================================================================
-- Messages that point to the fix (issue 18)
--
-- snowflake_convert_column: converting a column that is converted already
-- says plainly that nothing was done and why (a NOTICE with a DETAIL, and a
-- HINT when drop_sequence was asked for), instead of an unexplained empty
-- result.  The function is otherwise the one of 1.3.
--
-- snowflake_registry_release: its HINT names the documentation page where
-- "Retiring a node" now lives.
-- ===========================================================================
CREATE OR REPLACE FUNCTION @extschema@.snowflake_convert_column(
    table_name regclass,
    column_name name,
    dry_run boolean DEFAULT false,
    drop_sequence boolean DEFAULT false)
RETURNS SETOF text
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $convert$
DECLARE
    v_rel oid := table_name;
    v_col name := column_name;
    v_relkind "char";
    v_persistence "char";
    v_relnsp oid;
    v_ispartition boolean;
    v_tab text;                 -- the table, qualified and quoted
    v_attnum int2;
    v_type oid;
    v_typename text;
    v_identity "char";
    v_generated "char";
    v_inhcount int4;
    v_attrdef oid;
    v_default text;
    v_source text;              -- identity, serial, nextval or snowflake
    v_seq oid;
    v_seq_name text;
    v_drop_seq boolean := false;
    v_kept_detail text;
    -- The column and every column that references it, as (root table,
    -- column name), in discovery order; w_widen: its type changes.
    w_rel oid[] := ARRAY[]::oid[];
    w_col name[] := ARRAY[]::name[];
    w_widen boolean[] := ARRAY[]::boolean[];
    w_why text[] := ARRAY[]::text[];
    w_name text[] := ARRAY[]::text[];
    i int;
    j int;
    r record;
    v_text text;
    v_detail text;
    v_next bigint;
    v_max bigint;
    v_stmts text[] := ARRAY[]::text[];
BEGIN
    -- ---------------------------------------------------------------- inputs
    IF table_name IS NULL OR column_name IS NULL OR dry_run IS NULL OR drop_sequence IS NULL THEN
        RAISE EXCEPTION 'snowflake_convert_column: % must not be NULL',
            CASE WHEN table_name IS NULL THEN 'table_name'
                 WHEN column_name IS NULL THEN 'column_name'
                 WHEN dry_run IS NULL THEN 'dry_run'
                 ELSE 'drop_sequence' END
            USING ERRCODE = '22004';
    END IF;

    SELECT c.relkind, c.relpersistence, c.relnamespace, c.relispartition,
           format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                ELSE quote_ident(n.nspname) END, c.relname)
      INTO v_relkind, v_persistence, v_relnsp, v_ispartition, v_tab
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE c.oid = v_rel;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'relation with OID % does not exist', v_rel::oid
            USING ERRCODE = '42P01';
    END IF;
    IF v_relkind NOT IN ('r', 'p') THEN
        RAISE EXCEPTION '% is not a table', v_tab
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
         WHERE c.oid = pg_partition_root(v_rel);
        RAISE EXCEPTION 'cannot convert a column of % alone: it is a partition of %', v_tab, v_text
            USING ERRCODE = '0A000',
                  HINT = format('Convert the partitioned table, which converts all its partitions: SELECT snowflake_convert_column(%L, %L);',
                                v_text, v_col);
    END IF;

    SELECT a.attnum, a.atttypid, format_type(a.atttypid, a.atttypmod), a.attidentity,
           a.attgenerated, a.attinhcount
      INTO v_attnum, v_type, v_typename, v_identity, v_generated, v_inhcount
      FROM pg_catalog.pg_attribute a
     WHERE a.attrelid = v_rel AND a.attname = v_col AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'column % of table % does not exist', quote_ident(v_col), v_tab
            USING ERRCODE = '42703',
                  HINT = 'The column name is taken as it is written, case and all, without quotes.';
    END IF;
    IF v_attnum < 0 THEN
        RAISE EXCEPTION 'cannot convert system column %', quote_ident(v_col)
            USING ERRCODE = '0A000';
    END IF;
    IF v_type NOT IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype) THEN
        RAISE EXCEPTION 'column % of table % is not an integer column', quote_ident(v_col), v_tab
            USING ERRCODE = '42804',
                  DETAIL = format('Its type is %s; snowflake_convert_column converts smallint, integer and bigint columns.',
                                  v_typename);
    END IF;
    IF v_inhcount > 0 THEN
        SELECT format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                    ELSE quote_ident(n.nspname) END, c.relname)
          INTO v_text
          FROM pg_catalog.pg_inherits h
          JOIN pg_catalog.pg_class c ON c.oid = h.inhparent
          JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
         WHERE h.inhrelid = v_rel
         ORDER BY h.inhseqno LIMIT 1;
        RAISE EXCEPTION 'cannot convert inherited column % of table %', quote_ident(v_col), v_tab
            USING ERRCODE = '0A000',
                  DETAIL = format('The column is inherited from %s.', v_text),
                  HINT = format('Convert the column of %s, which converts its children too.', v_text);
    END IF;
    IF v_generated <> '' THEN
        RAISE EXCEPTION 'column % of table % is a generated column', quote_ident(v_col), v_tab
            USING ERRCODE = '0A000';
    END IF;

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

    -- ------------------------------------------------- can we issue ids?
    -- Not preloaded, no worker id, a standby: snowflake_nextval() says so
    -- with its own message and hint.  The id is spent, which is harmless;
    -- every id issued from now on is above it.  (Before any lock: on a
    -- standby LOCK TABLE would fail first, with a less useful message.)
    v_next := @extschema@.snowflake_nextval();

    -- --------------------------------- the column and every column that
    -- references it, directly or through a chain of foreign keys.  A
    -- referencing column is followed to the table it is defined in (a
    -- partition's column is changed through its partitioned table).
    w_rel := ARRAY[v_rel];
    w_col := ARRAY[v_col];
    w_widen := ARRAY[v_type <> 'int8'::regtype];
    w_why := ARRAY[NULL::text];
    w_name := ARRAY[v_tab];
    i := 1;
    WHILE i <= cardinality(w_rel) LOOP
        -- The tables this changes: must be ours (ALTER TABLE needs the owner
        -- of every table it changes, and of every partition or child it
        -- recurses to).  In a real run, locked before we look for what
        -- references them, so that no foreign key can appear behind our back.
        IF (i = 1 AND v_source <> 'snowflake') OR w_widen[i] THEN
            FOR r IN
                WITH RECURSIVE tree(relid) AS (
                    SELECT w_rel[i]
                    UNION
                    SELECT h.inhrelid FROM pg_catalog.pg_inherits h JOIN tree ON h.inhparent = tree.relid)
                SELECT c.oid,
                       format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                            ELSE quote_ident(n.nspname) END, c.relname) AS name
                  FROM tree
                  JOIN pg_catalog.pg_class c ON c.oid = tree.relid
                  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                 WHERE NOT pg_has_role(c.relowner, 'USAGE')
                 ORDER BY c.oid <> w_rel[i], c.oid
                 LIMIT 1
            LOOP
                IF r.oid = v_rel THEN
                    RAISE EXCEPTION 'must be owner of table %', r.name USING ERRCODE = '42501';
                END IF;
                RAISE EXCEPTION 'must be owner of table %', r.name
                    USING ERRCODE = '42501',
                          DETAIL = CASE WHEN i = 1 THEN format('Converting column %I of table %s changes its partitions and inheritance children too.',
                                                               v_col, v_tab)
                                        ELSE format('Converting column %I of table %s changes column %I of table %s%s to bigint: %s.',
                                                    v_col, v_tab, w_col[i], w_name[i],
                                                    CASE WHEN r.oid <> w_rel[i] THEN ' and its partitions' ELSE '' END,
                                                    w_why[i]) END;
            END LOOP;
            IF NOT dry_run THEN
                EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', w_name[i]);
            END IF;
        END IF;
        FOR r IN
            WITH RECURSIVE tree(relid) AS (
                SELECT w_rel[i]
                UNION
                SELECT h.inhrelid FROM pg_catalog.pg_inherits h JOIN tree ON h.inhparent = tree.relid)
            SELECT DISTINCT con.conname, con.conrelid, fa.attname AS fk_col
              FROM tree
              JOIN pg_catalog.pg_attribute pa
                ON pa.attrelid = tree.relid AND pa.attname = w_col[i] AND NOT pa.attisdropped
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
                CONTINUE WHEN EXISTS (SELECT 1 FROM generate_subscripts(w_rel, 1) g
                                       WHERE w_rel[g] = c_rel AND w_col[g] = r.fk_col);
                SELECT a.atttypid, format_type(a.atttypid, a.atttypmod) INTO c_type, c_typename
                  FROM pg_catalog.pg_attribute a
                 WHERE a.attrelid = c_rel AND a.attname = r.fk_col AND NOT a.attisdropped;
                SELECT format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                            ELSE quote_ident(n.nspname) END, c.relname)
                  INTO c_name
                  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                 WHERE c.oid = c_rel;
                c_why := format('it references column %I of table %s (constraint %I)',
                                w_col[i], w_name[i], r.conname);
                IF c_type NOT IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype) THEN
                    RAISE EXCEPTION 'cannot convert column % of table %: a column that references it is not an integer column',
                                    quote_ident(v_col), v_tab
                        USING ERRCODE = '42804',
                              DETAIL = format('Column %I of table %s has type %s; %s.', r.fk_col, c_name, c_typename, c_why),
                              HINT = 'Change that column to bigint first.';
                END IF;
                w_rel := w_rel || c_rel;
                w_col := w_col || r.fk_col;
                w_widen := w_widen || (c_type <> 'int8'::regtype);
                w_why := w_why || c_why;
                w_name := w_name || c_name;
            END;
        END LOOP;
        i := i + 1;
    END LOOP;

    -- Nothing to do: already on snowflake ids, every column already bigint.
    -- Said plainly, with why, since the function then returns no statement.
    IF v_source = 'snowflake' AND NOT true = ANY (w_widen) THEN
        v_detail := format('Its default is %s, and %s bigint already. No statement was run.',
                           v_default,
                           CASE WHEN cardinality(w_rel) = 1 THEN 'it is'
                                ELSE 'it and every column that references it are' END);
        IF drop_sequence THEN
            RAISE NOTICE 'nothing to do: column % of table % already uses snowflake ids',
                         quote_ident(v_col), v_tab
                USING DETAIL = v_detail,
                      HINT = 'drop_sequence drops the sequence that a conversion replaces. '
                             'Drop a sequence kept by an earlier conversion with DROP SEQUENCE.';
        ELSE
            RAISE NOTICE 'nothing to do: column % of table % already uses snowflake ids',
                         quote_ident(v_col), v_tab
                USING DETAIL = v_detail;
        END IF;
        RETURN;
    END IF;

    -- ------------------------------------- columns that cannot change type
    FOR i IN 1 .. cardinality(w_rel) LOOP
        CONTINUE WHEN NOT w_widen[i];
        -- A partition key column cannot change its type.
        FOR r IN
            WITH RECURSIVE tree(relid) AS (
                SELECT w_rel[i]
                UNION
                SELECT h.inhrelid FROM pg_catalog.pg_inherits h JOIN tree ON h.inhparent = tree.relid)
            SELECT format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                        ELSE quote_ident(n.nspname) END, c.relname) AS name
              FROM tree
              JOIN pg_catalog.pg_partitioned_table pt ON pt.partrelid = tree.relid
              JOIN pg_catalog.pg_attribute a
                ON a.attrelid = tree.relid AND a.attname = w_col[i] AND NOT a.attisdropped
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
            RAISE EXCEPTION 'cannot convert column % of table %: %', quote_ident(v_col), v_tab,
                            CASE WHEN i = 1 THEN format('it is part of the partition key of %s', r.name)
                                 ELSE format('it must widen column %I of table %s, which is part of the partition key of %s',
                                             w_col[i], w_name[i], r.name) END
                USING ERRCODE = '0A000',
                      DETAIL = CASE WHEN i = 1 THEN format('Converting it changes its type from %s to bigint, and PostgreSQL cannot change the type of a partition key column.', v_typename)
                                    ELSE format('Converting it changes column %I of table %s to bigint: %s. PostgreSQL cannot change the type of a partition key column.',
                                                w_col[i], w_name[i], w_why[i]) END,
                      HINT = 'Partition the table by a bigint column, or convert a table that is partitioned by another column.';
        END LOOP;
    END LOOP;

    -- Views, rules, triggers, policies, SQL-body functions, publication
    -- column lists and WHERE clauses, and generated columns on a column that
    -- changes type block ALTER COLUMN TYPE, and so does a column of another
    -- table typed with the table's row type.
    SELECT string_agg(line, E'\n' ORDER BY line) INTO v_detail
      FROM (
        WITH RECURSIVE tree(relid, col) AS (
            SELECT w_rel[g], w_col[g] FROM generate_subscripts(w_rel, 1) g WHERE w_widen[g]
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
                        quote_ident(v_col), v_tab
            USING ERRCODE = '2BP01',
                  DETAIL = v_detail,
                  HINT = 'PostgreSQL cannot change the type of a column that views, rules and the like depend on. '
                         'Drop them, convert, and create them again, in one transaction.';
    END IF;

    -- ------------------------------------------- the old sequence
    IF drop_sequence AND v_source IN ('serial', 'nextval') THEN
        -- What else uses it: other defaults (the column's own, in the table
        -- and its partitions or children, is replaced), views, functions,
        -- an owner column other than ours.
        SELECT string_agg(line, E'\n' ORDER BY line) INTO v_detail
          FROM (
            WITH RECURSIVE tree(relid) AS (
                SELECT v_rel
                UNION
                SELECT h.inhrelid FROM pg_catalog.pg_inherits h JOIN tree ON h.inhparent = tree.relid),
            ours AS (
                SELECT ad.oid FROM tree
                  JOIN pg_catalog.pg_attribute a
                    ON a.attrelid = tree.relid AND a.attname = v_col AND NOT a.attisdropped
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
             WHERE d.refclassid = 'pg_catalog.pg_class'::regclass AND d.refobjid = v_seq
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
             WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = v_seq
               AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.deptype = 'a'
               AND NOT (d.refobjid = v_rel AND d.refobjsubid = v_attnum)
          ) users;
        IF v_detail IS NOT NULL THEN
            v_kept_detail := v_detail;      -- said once every check has passed
        ELSIF NOT (SELECT pg_has_role(c.relowner, 'USAGE') FROM pg_catalog.pg_class c WHERE c.oid = v_seq) THEN
            RAISE EXCEPTION 'must be owner of sequence %', v_seq_name
                USING ERRCODE = '42501',
                      HINT = 'Convert without drop_sequence, and let the sequence''s owner drop it.';
        ELSE
            v_drop_seq := true;
        END IF;
    END IF;

    -- ------------------------------------------------------ statements
    SELECT 'LOCK TABLE ' || string_agg(f.name, ', ' ORDER BY f.first) || ' IN ACCESS EXCLUSIVE MODE;'
      INTO v_text
      FROM (SELECT w_name[g] AS name, min(g) AS first
              FROM generate_subscripts(w_rel, 1) g
             WHERE g = 1 OR w_widen[g]
             GROUP BY w_name[g]) f;
    v_stmts := v_stmts || v_text;
    IF v_source = 'identity' THEN
        v_stmts := v_stmts || format('ALTER TABLE %s ALTER COLUMN %I DROP IDENTITY;', v_tab, v_col);
    END IF;
    FOR r IN
        SELECT format('ALTER TABLE %s %s;', w_name[g],
                      string_agg(format('ALTER COLUMN %I TYPE bigint', w_col[g]), ', ' ORDER BY g)) AS stmt
          FROM generate_subscripts(w_rel, 1) g
         WHERE w_widen[g]
         GROUP BY w_name[g]
         ORDER BY min(g)
    LOOP
        v_stmts := v_stmts || r.stmt;
    END LOOP;
    IF v_source <> 'snowflake' THEN
        v_stmts := v_stmts || format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT %s;',
                                     v_tab, v_col, '@extschema@.snowflake_nextval()');
    END IF;
    IF v_drop_seq THEN
        v_stmts := v_stmts || format('DROP SEQUENCE %s;', v_seq_name);
    END IF;

    -- ------------------------------------------------------------ run
    IF NOT dry_run THEN
        EXECUTE v_stmts[1];     -- the LOCK (held already, table by table, since the checks)
    END IF;
    -- Every id from now on is above v_next: the values already in the
    -- column (read under the lock) must be below it, or new ids could
    -- collide with old ones.
    EXECUTE format('SELECT max(%I)::bigint FROM %s', v_col, v_tab) INTO v_max;
    IF v_max >= v_next THEN
        RAISE EXCEPTION 'cannot convert column % of table %: it holds values at or above the next snowflake id',
                        quote_ident(v_col), v_tab
            USING ERRCODE = '55000',
                  DETAIL = format('Its largest value is %s; the next id this node issues is above %s.', v_max, v_next),
                  HINT = 'New ids would collide with existing ones. Renumber those rows, or keep the column as it is.';
    END IF;
    IF NOT dry_run THEN
        FOR j IN 2 .. cardinality(v_stmts) LOOP
            EXECUTE v_stmts[j];
        END LOOP;
    END IF;
    -- Said once it is done (or, in a dry run, would be).
    IF v_source = 'identity' AND NOT drop_sequence AND v_seq IS NOT NULL THEN
        RAISE NOTICE 'dropping the identity of column % of table % drops its sequence %',
                     quote_ident(v_col), v_tab, v_seq_name
            USING DETAIL = 'An identity column''s sequence belongs to the identity: PostgreSQL drops it with DROP IDENTITY.';
    END IF;
    IF v_kept_detail IS NOT NULL THEN
        RAISE NOTICE 'sequence % is kept: other objects use it', v_seq_name
            USING DETAIL = v_kept_detail;
    END IF;
    RETURN QUERY SELECT u.stmt FROM unnest(v_stmts) WITH ORDINALITY AS u(stmt, n) ORDER BY u.n;
END
$convert$;
CREATE OR REPLACE FUNCTION @extschema@.snowflake_registry_release(node_key text)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn_key text := snowflake_registry_release.node_key;
    seen timestamptz;
BEGIN
    DELETE FROM @extschema@.snowflake_registry r
    WHERE r.node_key = fn_key AND r.last_seen <= now() - interval '10 minutes';
    IF FOUND THEN
        RETURN true;
    END IF;
    SELECT r.last_seen INTO seen FROM @extschema@.snowflake_registry r WHERE r.node_key = fn_key;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    RAISE EXCEPTION 'the snowflake registry claim of node % was renewed less than 10 minutes ago',
                    fn_key
        USING ERRCODE = '55006',
              DETAIL = format('It was last renewed %s s ago. A running node renews its claim '
                              'every minute; releasing the claim of a node that still issues '
                              'ids lets another node take its pair.',
                              floor(extract(epoch FROM now() - seen))),
              HINT = 'Stop the node for good first (see "Retiring a node" in the snowflake '
                     'documentation, docs/operations.md); its claim can be released once it has '
                     'not been renewed for 10 minutes.';
END
$$;
-- ===========================================================================
-- end of messages that point to the fix (issue 18)
-- ===========================================================================

-- =====================================================================
-- Time predicates and time partitions (issue 19)
--
-- Conditions on an id's time that use the id's index: the "made within"
-- operator (id <@ tstzrange) with a planner support function, the exact id
-- bounds of a time that the planner writes for snowflake_timestamp(id) >= x
-- and the like (the library's planner hook, snowflake.time_predicates), and
-- functions that create and retire range partitions by time.
-- =====================================================================

-- The planner support function of the functions below (see
-- src/pg/time_support.cpp).
CREATE FUNCTION @extschema@.snowflake_time_support(internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'snowflake_time_support'
LANGUAGE C STRICT;

-- Exact id bounds of a time.  Never an error on a time: a bound that
-- excludes no id is the first or last id, one that no id meets is NULL.
CREATE FUNCTION @extschema@.snowflake_min_id_since(ts timestamptz)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_since'
LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT @extschema@.snowflake_time_support;
COMMENT ON FUNCTION @extschema@.snowflake_min_id_since(timestamptz) IS
    'smallest id made at ts or later (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_min_id_after(ts timestamptz)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_after'
LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT @extschema@.snowflake_time_support;
COMMENT ON FUNCTION @extschema@.snowflake_min_id_after(timestamptz) IS
    'smallest id made after ts (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_max_id_until(ts timestamptz)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_until'
LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT @extschema@.snowflake_time_support;
COMMENT ON FUNCTION @extschema@.snowflake_max_id_until(timestamptz) IS
    'largest id made at ts or earlier (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_max_id_before(ts timestamptz)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_before'
LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT @extschema@.snowflake_time_support;
COMMENT ON FUNCTION @extschema@.snowflake_max_id_before(timestamptz) IS
    'largest id made before ts (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_min_id_since(
    ts timestamptz, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_since_with_layout'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_min_id_since(timestamptz, bigint, integer, integer, integer) IS
    'smallest id made at ts or later under the given epoch and layout (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_min_id_after(
    ts timestamptz, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_after_with_layout'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_min_id_after(timestamptz, bigint, integer, integer, integer) IS
    'smallest id made after ts under the given epoch and layout (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_max_id_until(
    ts timestamptz, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_until_with_layout'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_max_id_until(timestamptz, bigint, integer, integer, integer) IS
    'largest id made at ts or earlier under the given epoch and layout (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_max_id_before(
    ts timestamptz, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_before_with_layout'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_max_id_before(timestamptz, bigint, integer, integer, integer) IS
    'largest id made before ts under the given epoch and layout (NULL if none)';

-- The same for a date or a timestamp without time zone, taken as PostgreSQL
-- compares them with a timestamptz: in the session's time zone (STABLE,
-- computed when the statement runs); beyond timestamptz's range, as before
-- or after every id.
CREATE FUNCTION @extschema@.snowflake_min_id_since(d date)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_since_date'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_min_id_since(date) IS
    'smallest id made at midnight of d (in the session''s time zone) or later (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_min_id_after(d date)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_after_date'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_min_id_after(date) IS
    'smallest id made after midnight of d (in the session''s time zone) (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_max_id_until(d date)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_until_date'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_max_id_until(date) IS
    'largest id made at midnight of d (in the session''s time zone) or earlier (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_max_id_before(d date)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_before_date'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_max_id_before(date) IS
    'largest id made before midnight of d (in the session''s time zone) (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_min_id_since(ts timestamp)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_since_timestamp'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_min_id_since(timestamp) IS
    'smallest id made at ts (in the session''s time zone) or later (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_min_id_after(ts timestamp)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_after_timestamp'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_min_id_after(timestamp) IS
    'smallest id made after ts (in the session''s time zone) (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_max_id_until(ts timestamp)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_until_timestamp'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_max_id_until(timestamp) IS
    'largest id made at ts (in the session''s time zone) or earlier (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_max_id_before(ts timestamp)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_before_timestamp'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_max_id_before(timestamp) IS
    'largest id made before ts (in the session''s time zone) (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_min_id_within(period tstzrange)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_within'
LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT @extschema@.snowflake_time_support;
COMMENT ON FUNCTION @extschema@.snowflake_min_id_within(tstzrange) IS
    'smallest id made within the range (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_max_id_within(period tstzrange)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_within'
LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT @extschema@.snowflake_time_support;
COMMENT ON FUNCTION @extschema@.snowflake_max_id_within(tstzrange) IS
    'largest id made within the range (NULL if none)';

-- id <@ tstzrange: the id was made within the range.
CREATE FUNCTION @extschema@.snowflake_made_within(id bigint, period tstzrange)
RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_made_within'
LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT @extschema@.snowflake_time_support;
COMMENT ON FUNCTION @extschema@.snowflake_made_within(bigint, tstzrange) IS
    'whether the id was made within the range (the <@ operator)';

CREATE FUNCTION @extschema@.snowflake_made_within_sel(internal, oid, internal, integer)
RETURNS double precision
AS 'MODULE_PATHNAME', 'snowflake_made_within_sel'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_made_within_sel(internal, oid, internal, integer) IS
    'selectivity of id <@ tstzrange, from the id column''s statistics';

CREATE OPERATOR @extschema@.<@ (
    LEFTARG = bigint,
    RIGHTARG = tstzrange,
    FUNCTION = @extschema@.snowflake_made_within,
    RESTRICT = @extschema@.snowflake_made_within_sel,
    JOIN = pg_catalog.contjoinsel   -- as core's element <@ range
);
COMMENT ON OPERATOR @extschema@.<@ (bigint, tstzrange) IS 'id was made within the time range';

-- ---------------------------------------------------------------------
-- Time partitions: range partitions of a table partitioned by its id, made
-- and retired by time.  The bounds are the first ids of the boundary
-- milliseconds (snowflake_min_id_since), computed in the time zone given
-- (UTC unless told otherwise), never in the session's: each function sets
-- TimeZone for its own run only.

CREATE FUNCTION @extschema@.snowflake_create_partitions(
    table_name regclass,
    start_time timestamptz,
    end_time timestamptz,
    step interval,
    time_zone text DEFAULT 'UTC',
    dry_run boolean DEFAULT false)
RETURNS SETOF text
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
SET TimeZone = 'UTC'
SET DateStyle = 'ISO, YMD'
SET IntervalStyle = 'postgres'
AS $create$
DECLARE
    max_partitions constant int := 1000;
    v_kind "char";
    v_nsp text;                 -- the table's schema, quoted (pg_temp for a temporary table)
    v_nspoid oid;
    v_relname name;
    v_tab text;                 -- the table, qualified and quoted
    v_strat "char";
    v_natts int2;
    v_keynum int2;
    v_keyname name;
    v_keytype oid;
    v_opcdefault boolean;
    v_months int;
    v_days int;
    v_time interval;
    v_fmt text;
    -- existing partitions: name, lower and upper id (NULL: MINVALUE/MAXVALUE)
    e_name text[] := ARRAY[]::text[];
    e_lo bigint[] := ARRAY[]::bigint[];
    e_hi bigint[] := ARRAY[]::bigint[];
    e_lo_min boolean[] := ARRAY[]::boolean[];
    e_hi_max boolean[] := ARRAY[]::boolean[];
    -- the partitions to create
    p_name text[] := ARRAY[]::text[];
    p_lo bigint[] := ARRAY[]::bigint[];
    p_hi bigint[] := ARRAY[]::bigint[];     -- NULL: MAXVALUE (past the lifetime)
    p_from timestamptz[] := ARRAY[]::timestamptz[];
    p_to timestamptz[] := ARRAY[]::timestamptz[];
    t_lo timestamptz;
    t_hi timestamptz;
    lo bigint;
    hi bigint;
    v_name text;
    v_stmt text;
    v_skip boolean;
    i int;
    j int;
    r record;
BEGIN
    IF table_name IS NULL OR start_time IS NULL OR end_time IS NULL OR step IS NULL
       OR time_zone IS NULL OR dry_run IS NULL THEN
        RAISE EXCEPTION 'snowflake_create_partitions: % must not be NULL',
            CASE WHEN table_name IS NULL THEN 'table_name' WHEN start_time IS NULL THEN 'start_time'
                 WHEN end_time IS NULL THEN 'end_time' WHEN step IS NULL THEN 'step'
                 WHEN time_zone IS NULL THEN 'time_zone' ELSE 'dry_run' END
            USING ERRCODE = '22004';
    END IF;
    -- Calendar steps (days, months) follow this zone's calendar, for this
    -- function's run only (its SET TimeZone restores the caller's).
    PERFORM set_config('TimeZone', time_zone, true);
    IF NOT isfinite(start_time) OR NOT isfinite(end_time) THEN
        RAISE EXCEPTION 'snowflake_create_partitions: start_time and end_time must be finite'
            USING ERRCODE = '22008';
    END IF;
    IF start_time >= end_time THEN
        RAISE EXCEPTION 'snowflake_create_partitions: start_time (%) is not before end_time (%)',
                        start_time, end_time
            USING ERRCODE = '22023';
    END IF;
    IF step <= interval '0' THEN
        RAISE EXCEPTION 'snowflake_create_partitions: step must be positive, not %', step
            USING ERRCODE = '22023',
                  HINT = 'Give a step such as ''1 day'' or ''1 month''.';
    END IF;

    -- ------------------------------------------------------------ the table
    SELECT c.relkind, c.relnamespace, c.relname,
           CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp' ELSE quote_ident(n.nspname) END
      INTO v_kind, v_nspoid, v_relname, v_nsp
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE c.oid = table_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'relation with OID % does not exist', table_name::oid USING ERRCODE = '42P01';
    END IF;
    v_tab := v_nsp || '.' || quote_ident(v_relname);
    IF v_kind <> 'p' THEN
        RAISE EXCEPTION '% is not a partitioned table', v_tab
            USING ERRCODE = '42809',
                  HINT = 'Time partitions need a table created with PARTITION BY RANGE (id), id being its bigint snowflake id.';
    END IF;
    SELECT pt.partstrat, pt.partnatts, pt.partattrs[0], a.attname, a.atttypid, opc.opcdefault
      INTO v_strat, v_natts, v_keynum, v_keyname, v_keytype, v_opcdefault
      FROM pg_catalog.pg_partitioned_table pt
      LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = pt.partrelid AND a.attnum = pt.partattrs[0]
      LEFT JOIN pg_catalog.pg_opclass opc ON opc.oid = pt.partclass[0]
     WHERE pt.partrelid = table_name;
    IF v_strat <> 'r' OR v_natts <> 1 OR v_keynum = 0 THEN
        RAISE EXCEPTION '% is not partitioned by range of one column', v_tab
            USING ERRCODE = '42P17',
                  DETAIL = format('Its partition key is %s.', pg_get_partkeydef(table_name)),
                  HINT = 'Time partitions need PARTITION BY RANGE (id), id being the table''s bigint snowflake id.';
    END IF;
    IF v_keytype <> 'pg_catalog.int8'::regtype OR NOT v_opcdefault THEN
        RAISE EXCEPTION 'the partition key of % is not a bigint column', v_tab
            USING ERRCODE = '42804',
                  DETAIL = format('Its partition key is %s, of type %s.', pg_get_partkeydef(table_name),
                                  format_type(v_keytype, NULL)),
                  HINT = 'Time partitions need PARTITION BY RANGE (id), id being the table''s bigint snowflake id.';
    END IF;

    -- ------------------------------------------------- existing partitions
    FOR r IN
        SELECT c.relname,
               regexp_match(pg_get_expr(c.relpartbound, c.oid),
                            '^FOR VALUES FROM \((MINVALUE|''?(-?[0-9]+)''?)\) TO \((MAXVALUE|''?(-?[0-9]+)''?)\)$') AS b
          FROM pg_catalog.pg_inherits h JOIN pg_catalog.pg_class c ON c.oid = h.inhrelid
         WHERE h.inhparent = table_name
         ORDER BY c.relname
    LOOP
        CONTINUE WHEN r.b IS NULL;          -- the DEFAULT partition
        e_name := e_name || r.relname::text;
        e_lo_min := e_lo_min || (r.b[1] = 'MINVALUE');
        e_lo := e_lo || r.b[2]::bigint;
        e_hi_max := e_hi_max || (r.b[3] = 'MAXVALUE');
        e_hi := e_hi || r.b[4]::bigint;
    END LOOP;

    -- ----------------------------------------------------- the new bounds
    v_months := (extract(year FROM step) * 12 + extract(month FROM step))::int;
    v_days := extract(day FROM step)::int;
    v_time := step - make_interval(months => v_months, days => v_days);
    v_fmt := CASE
        WHEN v_time = interval '0' AND v_days = 0 AND v_months % 12 = 0 THEN 'YYYY'
        WHEN v_time = interval '0' AND v_days = 0 THEN 'YYYY_MM'
        WHEN v_time = interval '0' THEN 'YYYY_MM_DD'
        WHEN extract(minute FROM v_time) = 0 AND extract(second FROM v_time) = 0 THEN 'YYYY_MM_DD_HH24'
        WHEN extract(second FROM v_time) = 0 THEN 'YYYY_MM_DD_HH24MI'
        WHEN extract(second FROM v_time) = trunc(extract(second FROM v_time)) THEN 'YYYY_MM_DD_HH24MISS'
        ELSE 'YYYY_MM_DD_HH24MISS_US' END;
    i := 0;
    LOOP
        -- start + i * step, not repeated additions: a month after January
        -- 31 is February 28, and the next should be March 31, not 28.
        t_lo := start_time + step * i;
        EXIT WHEN t_lo >= end_time;
        t_hi := start_time + step * (i + 1);
        IF t_hi <= t_lo THEN
            RAISE EXCEPTION 'snowflake_create_partitions: step % does not advance from %', step, t_lo
                USING ERRCODE = '22023',
                      HINT = 'Use a step whose parts are all positive.';
        END IF;
        IF i >= max_partitions THEN
            RAISE EXCEPTION 'snowflake_create_partitions: more than % partitions from % to % by %',
                            max_partitions, start_time, end_time, step
                USING ERRCODE = '54000',
                      HINT = 'Create them in several calls, each in a transaction of its own (every new partition holds a lock until the transaction ends), or use a longer step.';
        END IF;
        lo := @extschema@.snowflake_min_id_since(t_lo);
        hi := @extschema@.snowflake_min_id_since(t_hi);
        IF lo IS NULL THEN
            RAISE EXCEPTION 'snowflake_create_partitions: % is past the end of the snowflake lifetime', t_lo
                USING ERRCODE = '22008',
                      DETAIL = format('The last millisecond the layout can represent is %s.',
                                      @extschema@.snowflake_timestamp(9223372036854775807));
        END IF;
        IF lo = hi THEN
            RAISE EXCEPTION 'snowflake_create_partitions: the partition from % to % would hold no ids', t_lo, t_hi
                USING ERRCODE = '22008',
                      DETAIL = format('It ends before the snowflake epoch, %s.',
                                      @extschema@.snowflake_timestamp(0)),
                      HINT = 'Start at or after the epoch.';
        END IF;
        v_name := v_relname || '_' || to_char(t_lo, v_fmt);
        IF octet_length(v_name) > 63 THEN
            RAISE EXCEPTION 'snowflake_create_partitions: partition name "%" is longer than 63 bytes', v_name
                USING ERRCODE = '42622',
                      HINT = 'Partitions are named after the table and their start; give the table a shorter name.';
        END IF;
        IF v_name = ANY (p_name) THEN
            RAISE EXCEPTION 'snowflake_create_partitions: two partitions would be named "%"', v_name
                USING ERRCODE = '42P07',
                      DETAIL = format('Steps of %s in time zone %s start twice in the same %s.', step, time_zone,
                                      CASE v_fmt WHEN 'YYYY_MM_DD_HH24' THEN 'hour' ELSE 'period' END),
                      HINT = 'Use time_zone => ''UTC'' for steps shorter than a day.';
        END IF;
        -- Already there with these bounds (a second run): nothing to do.
        -- Overlapping an existing partition otherwise: refuse.
        v_skip := false;
        FOR j IN 1 .. coalesce(array_length(e_name, 1), 0) LOOP
            IF e_lo[j] IS NOT DISTINCT FROM lo AND NOT e_lo_min[j]
               AND ((hi IS NULL AND e_hi_max[j]) OR e_hi[j] = hi) THEN
                v_skip := true;
            ELSIF (e_lo_min[j] OR hi IS NULL OR e_lo[j] < hi)
                  AND (e_hi_max[j] OR e_hi[j] > lo) THEN
                RAISE EXCEPTION 'snowflake_create_partitions: a partition from % to % would overlap partition %',
                                t_lo, t_hi, quote_ident(e_name[j])
                    USING ERRCODE = '42P17',
                          DETAIL = format('%s holds ids from %s to %s (%s to %s).', quote_ident(e_name[j]),
                                          CASE WHEN e_lo_min[j] THEN 'MINVALUE' ELSE e_lo[j]::text END,
                                          CASE WHEN e_hi_max[j] THEN 'MAXVALUE' ELSE e_hi[j]::text END,
                                          CASE WHEN e_lo_min[j] THEN '-infinity'
                                               ELSE @extschema@.snowflake_timestamp(greatest(e_lo[j], 0))::text END,
                                          CASE WHEN e_hi_max[j] THEN 'infinity'
                                               ELSE @extschema@.snowflake_timestamp(greatest(e_hi[j], 0))::text END),
                          HINT = 'Choose start_time and step so that the new partitions begin where the existing ones end, or detach the overlapping partition first.';
            END IF;
        END LOOP;
        IF NOT v_skip THEN
            IF to_regclass(v_nsp || '.' || quote_ident(v_name)) IS NOT NULL THEN
                RAISE EXCEPTION 'snowflake_create_partitions: relation %.% already exists', v_nsp, quote_ident(v_name)
                    USING ERRCODE = '42P07',
                          HINT = 'It is not a partition of this table with these bounds: rename or drop it first.';
            END IF;
            p_name := p_name || v_name;
            p_lo := p_lo || lo;
            p_hi := p_hi || hi;
            p_from := p_from || t_lo;
            p_to := p_to || t_hi;
        END IF;
        i := i + 1;
    END LOOP;

    -- ---------------------------------------------------------- create
    FOR i IN 1 .. coalesce(array_length(p_name, 1), 0) LOOP
        v_stmt := format('CREATE TABLE %s.%I PARTITION OF %s FOR VALUES FROM (%s) TO (%s)',
                         v_nsp, p_name[i], v_tab, p_lo[i], coalesce(p_hi[i]::text, 'MAXVALUE'));
        IF NOT dry_run THEN
            EXECUTE v_stmt;
        END IF;
        RETURN NEXT v_stmt;
    END LOOP;
END
$create$;
COMMENT ON FUNCTION @extschema@.snowflake_create_partitions(regclass, timestamptz, timestamptz, interval, text, boolean) IS
    'create range partitions of an id-partitioned table, one per step from start_time until end_time is covered';

CREATE FUNCTION @extschema@.snowflake_drop_partitions(
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
    v_kind "char";
    v_nsp text;
    v_relname name;
    v_tab text;
    v_strat "char";
    v_natts int2;
    v_keynum int2;
    v_keytype oid;
    v_opcdefault boolean;
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

    SELECT c.relkind, c.relname,
           CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp' ELSE quote_ident(n.nspname) END
      INTO v_kind, v_relname, v_nsp
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE c.oid = table_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'relation with OID % does not exist', table_name::oid USING ERRCODE = '42P01';
    END IF;
    v_tab := v_nsp || '.' || quote_ident(v_relname);
    IF v_kind <> 'p' THEN
        RAISE EXCEPTION '% is not a partitioned table', v_tab
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
        RAISE EXCEPTION '% is not partitioned by range of one column', v_tab
            USING ERRCODE = '42P17',
                  DETAIL = format('Its partition key is %s.', pg_get_partkeydef(table_name)),
                  HINT = 'Time partitions need PARTITION BY RANGE (id), id being the table''s bigint snowflake id.';
    END IF;
    IF v_keytype <> 'pg_catalog.int8'::regtype OR NOT v_opcdefault THEN
        RAISE EXCEPTION 'the partition key of % is not a bigint column', v_tab
            USING ERRCODE = '42804',
                  DETAIL = format('Its partition key is %s, of type %s.', pg_get_partkeydef(table_name),
                                  format_type(v_keytype, NULL)),
                  HINT = 'Time partitions need PARTITION BY RANGE (id), id being the table''s bigint snowflake id.';
    END IF;

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

-- ===========================================================================
-- Citus (issue 20): the cluster check.
--
-- Nothing here depends on Citus being installed: the check looks for it when
-- it is called, and refuses clearly without it.  (A node that takes its
-- identity from its Citus group, snowflake.citus_database, shows 'citus' in
-- snowflake_status.identity_source.)
-- ===========================================================================

-- snowflake_cluster_check(): run on the coordinator, asks every node of the
-- Citus cluster (run_command_on_all_nodes: the primaries, and the
-- coordinator itself) for its snowflake identity, layout, epoch and
-- extension version.  One row per node when all is well (problem is null),
-- else one row per problem of the node:
--   unreachable         the node did not answer (detail: the error)
--   extension_missing   snowflake is not installed in this database there
--   version_mismatch    its extension version differs from the coordinator's
--   status_failed       snowflake_status failed there (e.g. not preloaded)
--   identity_missing    no (datacenter_id, worker_id): it cannot make ids
--   identity_duplicate  another node has the same (datacenter_id, worker_id)
--   layout_mismatch     other widths than the coordinator's
--   epoch_mismatch      another epoch than the coordinator's
-- Alert on: SELECT count(*) FROM snowflake_cluster_check() WHERE problem IS NOT NULL.
CREATE FUNCTION @extschema@.snowflake_cluster_check(
    OUT node_name text,
    OUT node_port integer,
    OUT group_id integer,
    OUT datacenter_id integer,
    OUT worker_id integer,
    OUT epoch timestamptz,
    OUT layout text,
    OUT extension_version text,
    OUT problem text,
    OUT detail text)
RETURNS SETOF record
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $check$
DECLARE
    v_schema text;
    v_version text;
    v_group integer;
    v_ref record;
    v_ref_ok boolean := true;
    v_version_cmd text;
    v_status_cmd text;
    n record;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION 'snowflake_cluster_check() needs Citus'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'It asks the nodes of the Citus cluster of this database, and Citus '
                           'is not installed in this database.',
                  HINT = 'On a server without Citus, SELECT * FROM snowflake_status shows its identity.';
    END IF;
    EXECUTE 'SELECT groupid FROM pg_catalog.pg_dist_local_group' INTO v_group;
    IF v_group IS DISTINCT FROM 0 THEN
        RAISE EXCEPTION 'snowflake_cluster_check() runs on the Citus coordinator'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('This node is in Citus group %s; the coordinator is group 0.', v_group);
    END IF;
    SELECT quote_ident(ns.nspname), e.extversion INTO v_schema, v_version
    FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace ns ON ns.oid = e.extnamespace
    WHERE e.extname = 'snowflake';

    -- What the coordinator runs with: the reference for the other nodes.
    BEGIN
        EXECUTE format('SELECT (extract(epoch FROM s.epoch) * 1000)::bigint AS epoch_ms, '
                       's.datacenter_bits, s.worker_bits, s.sequence_bits FROM %s.snowflake_status s',
                       v_schema) INTO v_ref;
    EXCEPTION WHEN OTHERS THEN
        v_ref_ok := false;  -- its own row says why (status_failed)
    END;

    -- Two commands on every node: the version (which cannot fail where the
    -- node answers) and the status (which fails where snowflake is missing
    -- or not preloaded).  Both name everything with its schema.
    v_version_cmd := 'SELECT COALESCE((SELECT e.extversion FROM pg_catalog.pg_extension e '
                     'WHERE e.extname OPERATOR(pg_catalog.=) ''snowflake''), '''')';
    v_status_cmd := format('SELECT pg_catalog.json_build_object(''datacenter_id'', s.datacenter_id, '
                           '''worker_id'', s.worker_id, '
                           '''epoch_ms'', (extract(epoch FROM s.epoch) OPERATOR(pg_catalog.*) 1000)::bigint, '
                           '''datacenter_bits'', s.datacenter_bits, ''worker_bits'', s.worker_bits, '
                           '''sequence_bits'', s.sequence_bits)::text FROM %s.snowflake_status s',
                           v_schema);

    FOR n IN EXECUTE $q$
        WITH v AS (SELECT * FROM pg_catalog.run_command_on_all_nodes($1)),
             s AS (SELECT * FROM pg_catalog.run_command_on_all_nodes($2)),
             nodes AS (
                SELECT coalesce(d.nodename, current_setting('citus.local_hostname')) AS node_name,
                       coalesce(d.nodeport, current_setting('port')::integer) AS node_port,
                       coalesce(d.groupid, 0) AS group_id,
                       v.success AS reached,
                       CASE WHEN v.success THEN nullif(v.result, '') END AS version,
                       CASE WHEN NOT v.success THEN v.result END AS unreachable_error,
                       s.success AS status_ok,
                       CASE WHEN s.success THEN s.result::json END AS status,
                       CASE WHEN NOT s.success THEN s.result END AS status_error
                FROM v JOIN s USING (nodeid)
                LEFT JOIN pg_catalog.pg_dist_node d ON d.nodeid = v.nodeid),
             parsed AS (
                SELECT nodes.*,
                       (status->>'datacenter_id')::integer AS dc,
                       (status->>'worker_id')::integer AS worker,
                       (status->>'epoch_ms')::bigint AS epoch_ms,
                       (status->>'datacenter_bits')::integer AS dc_bits,
                       (status->>'worker_bits')::integer AS w_bits,
                       (status->>'sequence_bits')::integer AS s_bits
                FROM nodes)
        SELECT p.*,
               (SELECT string_agg(format('%s:%s', o.node_name, o.node_port), ', '
                                  ORDER BY o.node_name, o.node_port)
                FROM parsed o
                WHERE o.worker IS NOT NULL AND o.dc = p.dc AND o.worker = p.worker
                  AND (o.node_name, o.node_port) IS DISTINCT FROM (p.node_name, p.node_port)) AS same_identity
        FROM parsed p
        ORDER BY p.group_id, p.node_name, p.node_port
    $q$ USING v_version_cmd, v_status_cmd
    LOOP
        node_name := n.node_name;
        node_port := n.node_port;
        group_id := n.group_id;
        datacenter_id := CASE WHEN n.worker IS NOT NULL THEN n.dc END;
        worker_id := n.worker;
        epoch := to_timestamp(n.epoch_ms / 1000.0);
        layout := CASE WHEN n.dc_bits IS NOT NULL
                       THEN format('%s/%s/%s', n.dc_bits, n.w_bits, n.s_bits) END;
        extension_version := n.version;
        problem := NULL;
        detail := NULL;
        IF NOT n.reached THEN
            problem := 'unreachable';
            detail := n.unreachable_error;
            RETURN NEXT;
            CONTINUE;
        END IF;
        IF n.version IS NULL THEN
            problem := 'extension_missing';
            detail := 'The snowflake extension is not installed in this database on the node.';
            RETURN NEXT;
            CONTINUE;
        END IF;
        IF n.version IS DISTINCT FROM v_version THEN
            problem := 'version_mismatch';
            detail := format('The node has snowflake %s, the coordinator %s.', n.version, v_version);
            RETURN NEXT;
        END IF;
        IF NOT n.status_ok THEN
            problem := 'status_failed';
            detail := n.status_error;
            RETURN NEXT;
            CONTINUE;
        END IF;
        IF n.worker IS NULL THEN
            problem := 'identity_missing';
            detail := 'The node has no (datacenter_id, worker_id): snowflake_nextval() fails there, '
                      'including for INSERT ... SELECT and ALTER TABLE that Citus runs on it.';
            RETURN NEXT;
        ELSIF n.same_identity IS NOT NULL THEN
            problem := 'identity_duplicate';
            detail := format('datacenter_id %s, worker_id %s is also the identity of %s.',
                             n.dc, n.worker, n.same_identity);
            RETURN NEXT;
        END IF;
        IF v_ref_ok AND (n.dc_bits, n.w_bits, n.s_bits)
                        IS DISTINCT FROM (v_ref.datacenter_bits, v_ref.worker_bits, v_ref.sequence_bits) THEN
            problem := 'layout_mismatch';
            detail := format('The node has layout %s (datacenter/worker/sequence bits), the coordinator %s/%s/%s.',
                             layout, v_ref.datacenter_bits, v_ref.worker_bits, v_ref.sequence_bits);
            RETURN NEXT;
        END IF;
        IF v_ref_ok AND n.epoch_ms IS DISTINCT FROM v_ref.epoch_ms THEN
            problem := 'epoch_mismatch';
            detail := format('The node has epoch %s ms, the coordinator %s ms.', n.epoch_ms, v_ref.epoch_ms);
            RETURN NEXT;
        END IF;
        IF problem IS NULL THEN
            RETURN NEXT;
        END IF;
    END LOOP;
END
$check$;
COMMENT ON FUNCTION @extschema@.snowflake_cluster_check() IS
    'every node of the Citus cluster: its snowflake identity, layout, epoch and version, with the problems found (run on the coordinator)';

-- ===========================================================================
-- end of Citus (issue 20)
-- ===========================================================================
