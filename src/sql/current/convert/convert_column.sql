CREATE FUNCTION @extschema@.snowflake_convert_column(
    table_name regclass,
    column_name name,
    dry_run boolean DEFAULT false,
    drop_sequence boolean DEFAULT false,
    time_column name DEFAULT NULL)
RETURNS SETOF text
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
-- Its big statements are row by row (an index probe per row): compiling
-- them would cost more than it saves, once per batch.
SET jit = off
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
    -- What each statement is, where it is not simply run: 'map' (the new
    -- keys: checked once made), 'ranges:<relid>' (an UPDATE run in ranges of
    -- old keys), 'whole:<relid>' (an UPDATE run at once), 'fk' (a foreign key
    -- added again: announced on big tables).
    v_kinds text[] := ARRAY[]::text[];
    -- ------------------------------------------- re-keying (time_column)
    v_rekey boolean := time_column IS NOT NULL;
    v_tcol name := time_column;
    v_ttype oid;
    v_ttypename text;
    v_tcx text;                 -- the time column as a timestamptz expression
    v_dc integer;               -- this node's identity, layout and history
    v_worker integer;
    v_since timestamptz;
    v_idsource text;
    v_seq_bits integer;
    v_node_width integer;       -- datacenter_bits + worker_bits
    v_epoch timestamptz;
    v_bound bigint;             -- snowflake_min_id(identity_since): keys below it get new ids
    v_keys text;                -- the query of old key -> new key
    v_map constant text := 'pg_temp.snowflake_rekey_map';
    w_cons oid[] := ARRAY[]::oid[];     -- the foreign keys of the chain: dropped, then added again
    v_rows bigint;              -- keys to re-key
    v_min_t timestamptz;
    v_max_t timestamptz;
    v_spilled bigint;
    v_max_spill bigint;
    v_plan text;                -- what the re-key does, said in a NOTICE
    v_spill_detail text;
    v_first bigint;
    v_last bigint;
    v_units bigint;             -- progress: (UPDATE statement, range of keys) pairs, all and done
    v_units_done bigint;
    v_done_rows bigint;
    v_batch bigint;
    v_count bigint;
    v_t0 timestamptz;
    v_progress boolean;
    v_elapsed double precision;
    v_n_null bigint;            -- rows to re-key without a time, before the epoch, too late
    v_key_null bigint;
    v_n_early bigint;
    v_key_early bigint;
    v_n_late bigint;
    v_key_late bigint;
    v_late_t timestamptz;
    v_skip_updates boolean := false;
    v_overlap boolean;
    v_changed bigint;           -- keys that change (the others are their new key already)
    v_max_old bigint;           -- the largest key to re-key
    v_bounds bigint[];          -- the ranges of old keys the updates run in: [b1, b2), [b2, b3), ...
    v_nstmts integer;
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
    IF v_rekey THEN
        SELECT a.atttypid, format_type(a.atttypid, a.atttypmod) INTO v_ttype, v_ttypename
          FROM pg_catalog.pg_attribute a
         WHERE a.attrelid = v_rel AND a.attname = v_tcol AND a.attnum > 0 AND NOT a.attisdropped;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'time column % of table % does not exist', quote_ident(v_tcol), v_tab
                USING ERRCODE = '42703',
                      HINT = 'time_column names a column of the same table, taken as it is written, case and all, without quotes.';
        END IF;
        IF v_tcol = v_col THEN
            RAISE EXCEPTION 'time column % of table % is the column to convert', quote_ident(v_tcol), v_tab
                USING ERRCODE = '22023',
                      HINT = 'time_column names the column that holds when each row was made.';
        END IF;
        IF v_ttype NOT IN ('timestamptz'::regtype, 'timestamp'::regtype) THEN
            RAISE EXCEPTION 'time column % of table % is not a timestamp column', quote_ident(v_tcol), v_tab
                USING ERRCODE = '42804',
                      DETAIL = format('Its type is %s; the new ids are made from a timestamp with time zone or timestamp without time zone column.',
                                      v_ttypename),
                      HINT = 'Add a timestamptz column computed from it, and give that one.';
        END IF;
        -- A timestamp without time zone is read in the session's TimeZone,
        -- as PostgreSQL compares it with a timestamptz.
        v_tcx := CASE WHEN v_ttype = 'timestamptz'::regtype THEN quote_ident(v_tcol)
                      ELSE format('%I::timestamptz', v_tcol) END;
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

    -- ------------------------------------ re-keying: which ids are free
    -- The new ids carry this node's identity and milliseconds before
    -- identity_since: every id the node has issued, or will issue, under its
    -- identity is at or after it, so none of them can be one of these.
    -- (Another node that used this identity before is the one thing the
    -- node cannot know: a pair from the registry may have been, so such a
    -- node is refused; for a configured identity the documentation says
    -- what must hold.)
    IF v_rekey THEN
        SELECT s.datacenter_id, s.worker_id, s.identity_since, s.identity_source,
               s.sequence_bits, s.datacenter_bits + s.worker_bits, s.epoch
          INTO v_dc, v_worker, v_since, v_idsource, v_seq_bits, v_node_width, v_epoch
          FROM @extschema@.snowflake_status s;
        IF v_idsource = 'registry' THEN
            RAISE EXCEPTION 'cannot re-key column % of table %: this node''s identity comes from the registry',
                            quote_ident(v_col), v_tab
                USING ERRCODE = '55000',
                      DETAIL = format('The new ids would carry datacenter %s, worker %s at times before this node took that pair; the registry hands a released pair to the next node, so another node may have issued ids under it then.',
                                      v_dc, v_worker),
                      HINT = 'Re-key on a node whose identity is set in its configuration and was never another node''s, or convert without time_column.';
        END IF;
        IF v_since IS NULL THEN
            RAISE EXCEPTION 'cannot re-key column % of table %: this node does not know since when it issues ids under its identity',
                            quote_ident(v_col), v_tab
                USING ERRCODE = '55000',
                      DETAIL = format('snowflake_status.identity_since is null for datacenter %s, worker %s: the node may have issued ids under it at any time, so no time is free for new ids.',
                                      v_dc, v_worker),
                      HINT = 'Give this node an identity that no node has ever used (snowflake.worker_id, then reload): identity_since is then the time of the change. Or convert without time_column.';
        END IF;
        v_bound := @extschema@.snowflake_min_id(v_since);
    END IF;

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
        IF (i = 1 AND v_source <> 'snowflake') OR w_widen[i] OR v_rekey THEN
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
                                        WHEN w_widen[i] THEN format('Converting column %I of table %s changes column %I of table %s%s to bigint: %s.',
                                                    v_col, v_tab, w_col[i], w_name[i],
                                                    CASE WHEN r.oid <> w_rel[i] THEN ' and its partitions' ELSE '' END,
                                                    w_why[i])
                                        ELSE format('Re-keying column %I of table %s rewrites column %I of table %s%s: %s.',
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
            SELECT DISTINCT con.oid AS conoid, con.conname, con.conrelid, fa.attname AS fk_col
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
                IF NOT r.conoid = ANY (w_cons) THEN
                    w_cons := w_cons || r.conoid;
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
    IF v_source = 'snowflake' AND NOT true = ANY (w_widen) AND NOT v_rekey THEN
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
        CONTINUE WHEN NOT w_widen[i] AND NOT v_rekey;
        -- A partition key column cannot change its type, and re-keying one
        -- would move rows between partitions.
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
            RAISE EXCEPTION 'cannot % column % of table %: %',
                            CASE WHEN w_widen[i] THEN 'convert' ELSE 're-key' END, quote_ident(v_col), v_tab,
                            CASE WHEN i = 1 THEN format('it is part of the partition key of %s', r.name)
                                 WHEN w_widen[i] THEN format('it must widen column %I of table %s, which is part of the partition key of %s',
                                                             w_col[i], w_name[i], r.name)
                                 ELSE format('it rewrites column %I of table %s, which is part of the partition key of %s',
                                             w_col[i], w_name[i], r.name) END
                USING ERRCODE = '0A000',
                      DETAIL = CASE WHEN i = 1 AND w_widen[i] THEN format('Converting it changes its type from %s to bigint, and PostgreSQL cannot change the type of a partition key column.', v_typename)
                                    WHEN i = 1 THEN 'Re-keying it changes its values, which would move rows between partitions.'
                                    WHEN w_widen[i] THEN format('Converting it changes column %I of table %s to bigint: %s. PostgreSQL cannot change the type of a partition key column.',
                                                w_col[i], w_name[i], w_why[i])
                                    ELSE format('Re-keying it rewrites column %I of table %s: %s. That would move rows between partitions.',
                                                w_col[i], w_name[i], w_why[i]) END,
                      HINT = CASE WHEN w_widen[i] THEN 'Partition the table by a bigint column, or convert a table that is partitioned by another column.'
                                  ELSE 'Convert without time_column, or re-key a table that is partitioned by another column.' END;
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

    -- ----------------------------------------------- re-keying: the checks
    IF v_rekey THEN
        -- Every table whose rows the re-key updates, partitions and children
        -- included.  Triggers and rules on UPDATE would run for every row (an
        -- audit trail of a million updates, an updated_at set to now()), and
        -- forced row security would hide rows from the updates: the caller
        -- decides about them, knowingly.
        SELECT string_agg(line, E'\n' ORDER BY line) INTO v_detail
          FROM (
            WITH RECURSIVE tree(relid) AS (
                SELECT DISTINCT w_rel[g] FROM generate_subscripts(w_rel, 1) g
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
                            quote_ident(v_col), v_tab
                USING ERRCODE = '55000',
                      DETAIL = v_detail,
                      HINT = 'Re-keying updates every row. Disable such triggers and rules in the same transaction '
                             '(ALTER TABLE ... DISABLE TRIGGER / DISABLE RULE), convert, and enable them again; '
                             'or convert without time_column.';
        END IF;

        -- The old key says which rows reference which: it must be unique.
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_index x
                        WHERE x.indrelid = v_rel AND x.indisunique AND x.indnkeyatts = 1
                          AND x.indkey[0] = v_attnum AND x.indpred IS NULL AND x.indexprs IS NULL) THEN
            EXECUTE format('SELECT %1$I FROM %2$s WHERE %1$I < $1 GROUP BY 1 HAVING count(*) > 1 ORDER BY 1 LIMIT 1',
                           v_col, v_tab)
               INTO v_first USING v_bound;
            IF v_first IS NOT NULL THEN
                RAISE EXCEPTION 'cannot re-key column % of table %: its values are not unique', quote_ident(v_col), v_tab
                    USING ERRCODE = '23505',
                          DETAIL = format('Value %s is in more than one row.', v_first),
                          HINT = 'Each row needs a key of its own: the foreign keys that reference the column are rewritten by its value.';
            END IF;
        END IF;

        -- The rows to re-key: every key below snowflake_min_id(identity_since).
        -- (A key at or above it is an id made since: kept.)  Each needs a time
        -- from the epoch to before identity_since.
        EXECUTE format($q$
            SELECT count(*), min(%2$s), max(%2$s), max(%1$I),
                   count(*) FILTER (WHERE %2$s IS NULL), min(%1$I) FILTER (WHERE %2$s IS NULL),
                   count(*) FILTER (WHERE %2$s < $2),
                   (array_agg(%1$I ORDER BY %2$s, %1$I) FILTER (WHERE %2$s < $2))[1],
                   count(*) FILTER (WHERE %2$s >= $3),
                   (array_agg(%1$I ORDER BY %2$s, %1$I) FILTER (WHERE %2$s >= $3))[1],
                   min(%2$s) FILTER (WHERE %2$s >= $3)
              FROM %3$s WHERE %1$I < $1$q$, v_col, v_tcx, v_tab)
           INTO v_rows, v_min_t, v_max_t, v_max_old, v_n_null, v_key_null, v_n_early, v_key_early, v_n_late, v_key_late, v_late_t
          USING v_bound, v_epoch, date_trunc('milliseconds', v_since);
        IF v_n_null > 0 THEN
            RAISE EXCEPTION 'cannot re-key column % of table %: % % no time in %', quote_ident(v_col), v_tab,
                            v_n_null, CASE WHEN v_n_null = 1 THEN 'row has' ELSE 'rows have' END, quote_ident(v_tcol)
                USING ERRCODE = '22004',
                      DETAIL = format('The first of them has %I %s.', v_col, v_key_null),
                      HINT = format('Give those rows a time (UPDATE %s SET %I = ... WHERE %I IS NULL), or delete them, and convert again.',
                                    v_tab, v_tcol, v_tcol);
        END IF;
        IF v_n_early > 0 THEN
            RAISE EXCEPTION 'cannot re-key column % of table %: % % % before the snowflake epoch', quote_ident(v_col), v_tab,
                            v_n_early, CASE WHEN v_n_early = 1 THEN 'row has' ELSE 'rows have' END, quote_ident(v_tcol)
                USING ERRCODE = '22008',
                      DETAIL = format('The earliest is %s (%I %s); ids count milliseconds from the epoch, %s.',
                                      v_min_t, v_col, v_key_early, v_epoch),
                      HINT = 'Give those rows a time at or after the epoch, or delete them, and convert again.';
        END IF;
        IF v_n_late > 0 THEN
            RAISE EXCEPTION 'cannot re-key column % of table %: % % % at or after %, since when this node has issued ids under its identity',
                            quote_ident(v_col), v_tab, v_n_late,
                            CASE WHEN v_n_late = 1 THEN 'row has' ELSE 'rows have' END, quote_ident(v_tcol), v_since
                USING ERRCODE = '55000',
                      DETAIL = format('The earliest of them is at %s (%I %s). A new id at that time would carry datacenter %s, worker %s, the identity of ids this node may have issued since.',
                                      v_late_t, v_col, v_key_late, v_dc, v_worker),
                      HINT = 'Give this node an identity that no node has ever used (snowflake.worker_id, then reload), which starts a new identity_since, and convert again; or convert without time_column.';
        END IF;

        -- The new keys: in the order of (time, old key), each in its row's
        -- millisecond at the next free sequence number; a millisecond that
        -- runs out of sequence numbers spills into the next ones.  With
        -- slot = ms << sequence_bits | sequence, a row's slot is the larger
        -- of its own millisecond's first slot and the previous row's slot + 1,
        -- that is rn + max over the rows so far of (first slot - rn): one
        -- sort, one pass.
        v_keys := format(
'SELECT old_id::bigint AS old_id,
       (slot >> %1$s << %2$s) | %3$s | (slot & %4$s) AS new_id,
       (slot >> %1$s) - (row_slot >> %1$s) AS spill
  FROM (SELECT old_id, row_slot,
               rn + max(row_slot - rn) OVER (ORDER BY t, old_id ROWS UNBOUNDED PRECEDING) AS slot
          FROM (SELECT %5$I AS old_id, %6$s AS t,
                       %7$s(%6$s) >> %8$s AS row_slot,
                       row_number() OVER (ORDER BY %6$s, %5$I) AS rn
                  FROM %9$s
                 WHERE %5$I < %10$s) r) s',
            v_seq_bits, v_seq_bits + v_node_width,
            @extschema@.snowflake_make_id(v_epoch, v_dc, v_worker, 0), (1::bigint << v_seq_bits) - 1,
            v_col, v_tcx, '@extschema@.snowflake_min_id', v_node_width, v_tab, v_bound);
        v_plan := format('%s %s of %s from %s', v_rows, CASE WHEN v_rows = 1 THEN 'row' ELSE 'rows' END,
                         v_tab, quote_ident(v_tcol))
                  || CASE WHEN v_rows > 0 THEN format(' (%s to %s)', v_min_t, v_max_t) ELSE '' END;
        IF dry_run THEN
            -- What the keys would be, without keeping them: how far rows
            -- spill, and whether the last ones stay before identity_since.
            EXECUTE format('SELECT count(*) FILTER (WHERE spill > 0), coalesce(max(spill), 0), max(new_id) FROM (%s) k', v_keys)
               INTO v_spilled, v_max_spill, v_last;
            IF v_last >= v_bound THEN
                RAISE EXCEPTION 'cannot re-key column % of table %: its last rows would spill into %, since when this node has issued ids under its identity',
                                quote_ident(v_col), v_tab, v_since
                    USING ERRCODE = '55000',
                          DETAIL = format('%s %s into following milliseconds, by up to %s ms: a millisecond holds %s ids.',
                                          v_spilled, CASE WHEN v_spilled = 1 THEN 'row spills' ELSE 'rows spill' END,
                                          v_max_spill, 1::bigint << v_seq_bits),
                          HINT = 'Give this node an identity that no node has ever used (snowflake.worker_id, then reload), which starts a new identity_since, and convert again; or convert without time_column.';
            END IF;
        END IF;
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
             WHERE g = 1 OR w_widen[g] OR v_rekey
             GROUP BY w_name[g]) f;
    v_stmts := v_stmts || v_text;
    IF v_source = 'identity' THEN
        v_stmts := v_stmts || format('ALTER TABLE %s ALTER COLUMN %I DROP IDENTITY;', v_tab, v_col);
    END IF;
    -- Re-keying rewrites the keys and the columns that reference them
    -- together, in ranges: their foreign keys are dropped first and added
    -- again at the end, which checks every row once (per-row checks of each
    -- updated key would probe the referencing table, index or not, for every
    -- row).  Before any widening, so that it does not check them too.
    IF v_rekey THEN
        FOR r IN
            SELECT format('ALTER TABLE %s DROP CONSTRAINT %I;', q.name, con.conname) AS stmt
              FROM unnest(w_cons) WITH ORDINALITY AS u(oid, n)
              JOIN pg_catalog.pg_constraint con ON con.oid = u.oid
              JOIN LATERAL (SELECT format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                                        ELSE quote_ident(n.nspname) END, c.relname) AS name
                              FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                             WHERE c.oid = con.conrelid) q ON true
             ORDER BY u.n
        LOOP
            v_stmts := v_stmts || r.stmt;
        END LOOP;
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
    v_kinds := array_fill(''::text, ARRAY[cardinality(v_stmts)]);
    IF v_rekey THEN
        -- In old-key order: the batches read it in ranges of old keys.
        v_stmts := v_stmts || format(E'CREATE TEMP TABLE snowflake_rekey_map ON COMMIT DROP AS\nSELECT * FROM (\n%s\n) k WHERE new_id <> old_id ORDER BY old_id;', v_keys);
        v_kinds := v_kinds || 'map'::text;
        v_stmts := v_stmts || format('CREATE UNIQUE INDEX ON %s (old_id);', v_map);
        v_kinds := v_kinds || ''::text;
        v_stmts := v_stmts || format('ANALYZE %s;', v_map);
        v_kinds := v_kinds || ''::text;
        -- One UPDATE per column, on each table that holds rows (the
        -- partitions and children of a partitioned table or parent), joined
        -- with the map: only values that have a new key change.  Where the
        -- table has an index that starts with the column, it runs in ranges
        -- of old keys (each range a join of two index ranges); else in one
        -- statement (a range would read the whole table each time).
        FOR r IN
            WITH RECURSIVE tree(relid, col, g) AS (
                SELECT w_rel[g], w_col[g], g FROM generate_subscripts(w_rel, 1) g
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
            v_stmts := v_stmts || r.stmt;
            v_kinds := v_kinds || (CASE WHEN r.ranged THEN 'ranges:' ELSE 'whole:' END || r.relid);
        END LOOP;
        FOR r IN
            SELECT q.name, con.conname, pg_get_constraintdef(con.oid) AS def,
                   obj_description(con.oid, 'pg_constraint') AS comment
              FROM unnest(w_cons) WITH ORDINALITY AS u(oid, n)
              JOIN pg_catalog.pg_constraint con ON con.oid = u.oid
              JOIN LATERAL (SELECT format('%s.%I', CASE WHEN c.relnamespace = pg_my_temp_schema() THEN 'pg_temp'
                                                        ELSE quote_ident(n.nspname) END, c.relname) AS name
                              FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                             WHERE c.oid = con.conrelid) q ON true
             ORDER BY u.n
        LOOP
            v_stmts := v_stmts || format('ALTER TABLE %s ADD CONSTRAINT %I %s;', r.name, r.conname, r.def);
            v_kinds := v_kinds || 'fk'::text;
            IF r.comment IS NOT NULL THEN
                v_stmts := v_stmts || format('COMMENT ON CONSTRAINT %I ON %s IS %L;', r.conname, r.name, r.comment);
                v_kinds := v_kinds || ''::text;
            END IF;
        END LOOP;
    END IF;
    IF v_source <> 'snowflake' THEN
        v_stmts := v_stmts || format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT %s;',
                                     v_tab, v_col, '@extschema@.snowflake_nextval()');
        v_kinds := v_kinds || ''::text;
    END IF;
    IF v_drop_seq THEN
        v_stmts := v_stmts || format('DROP SEQUENCE %s;', v_seq_name);
        v_kinds := v_kinds || ''::text;
    END IF;
    IF v_rekey THEN
        v_stmts := v_stmts || format('DROP TABLE %s;', v_map);
        v_kinds := v_kinds || ''::text;
    END IF;

    -- ------------------------------------------------------------ run
    IF NOT dry_run THEN
        EXECUTE v_stmts[1];     -- the LOCK (held already, table by table, since the checks)
    END IF;
    -- Every id from now on is above v_next: the values already in the
    -- column (read under the lock) must be below it, or new ids could
    -- collide with old ones.  (Re-keyed values end below identity_since;
    -- the largest value, if it stays, is a key at or above it.)
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
            IF v_kinds[j] = 'map' THEN
                EXECUTE v_stmts[j];
                SELECT count(*), count(*) FILTER (WHERE m.spill > 0), coalesce(max(m.spill), 0), max(m.new_id),
                       min(m.new_id) <= max(m.old_id) AND max(m.new_id) >= min(m.old_id)
                  INTO v_changed, v_spilled, v_max_spill, v_last, v_overlap
                  FROM pg_temp.snowflake_rekey_map m;
                IF v_last >= v_bound THEN
                    RAISE EXCEPTION 'cannot re-key column % of table %: its last rows would spill into %, since when this node has issued ids under its identity',
                                    quote_ident(v_col), v_tab, v_since
                        USING ERRCODE = '55000',
                              DETAIL = format('%s %s into following milliseconds, by up to %s ms: a millisecond holds %s ids.',
                                              v_spilled, CASE WHEN v_spilled = 1 THEN 'row spills' ELSE 'rows spill' END,
                                              v_max_spill, 1::bigint << v_seq_bits),
                              HINT = 'Give this node an identity that no node has ever used (snowflake.worker_id, then reload), which starts a new identity_since, and convert again; or convert without time_column.';
                END IF;
                -- Rows are updated in ranges of old keys: a new key must not
                -- be some other row's old key, or a later range would
                -- rewrite it again.
                IF v_overlap AND EXISTS (SELECT 1 FROM pg_temp.snowflake_rekey_map a
                                            JOIN pg_temp.snowflake_rekey_map b ON b.old_id = a.new_id) THEN
                    RAISE EXCEPTION 'cannot re-key column % of table %: some new keys are the present keys of other rows',
                                    quote_ident(v_col), v_tab
                        USING ERRCODE = '55000',
                              HINT = 'Convert without time_column.';
                END IF;
                v_skip_updates := v_changed = 0;    -- every key is its new one already
            ELSIF v_kinds[j] LIKE 'ranges:%' OR v_kinds[j] LIKE 'whole:%' THEN
                CONTINUE WHEN v_skip_updates;
                IF v_bounds IS NULL THEN
                    -- The ranges of old keys, about 50 of them, none under
                    -- 100,000 keys: the first key of each.
                    v_batch := greatest(100000, ceil(v_changed / 50.0)::bigint);
                    SELECT array_agg(k.old_id ORDER BY k.old_id) INTO v_bounds
                      FROM (SELECT m.old_id, row_number() OVER (ORDER BY m.old_id) AS rn
                              FROM pg_temp.snowflake_rekey_map m) k
                     WHERE (k.rn - 1) % v_batch = 0;
                    v_bounds := v_bounds || (SELECT max(m.old_id) + 1 FROM pg_temp.snowflake_rekey_map m);
                    SELECT count(*) INTO v_nstmts FROM unnest(v_kinds) k
                     WHERE k LIKE 'ranges:%' OR k LIKE 'whole:%';
                    v_units := v_nstmts * (cardinality(v_bounds) - 1);
                    v_progress := cardinality(v_bounds) > 2;
                    v_units_done := 0;
                    v_done_rows := 0;
                    v_t0 := clock_timestamp();
                END IF;
                IF v_kinds[j] LIKE 'whole:%' THEN
                    IF v_progress THEN
                        RAISE NOTICE 're-keying %: updating % in one statement (no index starts with its column)',
                                     v_tab, substring(v_stmts[j] FROM '^UPDATE ONLY (.*) AS t SET ');
                    END IF;
                    EXECUTE v_stmts[j];
                    GET DIAGNOSTICS v_count = ROW_COUNT;
                    v_done_rows := v_done_rows + v_count;
                    v_units_done := v_units_done + cardinality(v_bounds) - 1;
                    v_elapsed := extract(epoch FROM clock_timestamp() - v_t0);
                    IF v_progress THEN
                        RAISE NOTICE 're-keying %: % rows updated, % done, % s so far, about % s left',
                                     v_tab, v_done_rows, floor(100.0 * v_units_done / v_units) || '%',
                                     round(v_elapsed), round(v_elapsed * (v_units - v_units_done) / v_units_done);
                    END IF;
                    CONTINUE;
                END IF;
                -- The column, as the statement names it.
                v_text := substring(v_stmts[j] FROM ' WHERE m\.old_id = (t\..*);$');
                FOR i IN 1 .. cardinality(v_bounds) - 1 LOOP
                    EXECUTE format('%s AND %s >= %s AND %s < %s AND m.old_id >= %s AND m.old_id < %s',
                                   rtrim(v_stmts[j], ';'), v_text, v_bounds[i], v_text, v_bounds[i + 1],
                                   v_bounds[i], v_bounds[i + 1]);
                    GET DIAGNOSTICS v_count = ROW_COUNT;
                    v_done_rows := v_done_rows + v_count;
                    v_units_done := v_units_done + 1;
                    IF v_progress THEN
                        v_elapsed := extract(epoch FROM clock_timestamp() - v_t0);
                        RAISE NOTICE 're-keying %: % rows updated, % done, % s so far, about % s left',
                                     v_tab, v_done_rows, floor(100.0 * v_units_done / v_units) || '%',
                                     round(v_elapsed), round(v_elapsed * (v_units - v_units_done) / v_units_done);
                    END IF;
                END LOOP;
            ELSIF v_kinds[j] = 'fk' AND v_progress THEN
                RAISE NOTICE 're-keying %: checking every row against its foreign key: %', v_tab, v_stmts[j];
                EXECUTE v_stmts[j];
            ELSE
                EXECUTE v_stmts[j];
            END IF;
        END LOOP;
    END IF;
    IF v_rekey THEN
        v_spill_detail := CASE WHEN v_spilled = 0 THEN
                                   format('No millisecond holds more of these rows than its %s sequence numbers: each id decodes to its row''s %I, to the millisecond.',
                                          1::bigint << v_seq_bits, v_tcol)
                               ELSE format('%s %s into following milliseconds, by at most %s ms: a millisecond holds %s ids, and rows beyond them take the next ones, in order.',
                                           v_spilled, CASE WHEN v_spilled = 1 THEN 'row spills' ELSE 'rows spill' END,
                                           v_max_spill, 1::bigint << v_seq_bits) END
                          || format(' The ids carry datacenter %s, worker %s and times before this node took that identity (snowflake_status.identity_since).',
                                    v_dc, v_worker);
        IF dry_run THEN
            RAISE NOTICE 'would re-key %', v_plan USING DETAIL = v_spill_detail;
        ELSE
            RAISE NOTICE 're-keyed %', v_plan
                                       || CASE WHEN v_changed < v_rows
                                               THEN format('; %s of them had their new key already', v_rows - v_changed)
                                               ELSE '' END
                                       || CASE WHEN v_done_rows > v_changed
                                               THEN format('; %s rows updated in all, the rows that reference them included', v_done_rows)
                                               ELSE '' END
                USING DETAIL = v_spill_detail;
        END IF;
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
COMMENT ON FUNCTION @extschema@.snowflake_convert_column(regclass, name, boolean, boolean, name) IS
    'move a serial, identity or nextval() column (and the foreign keys that reference it) onto DEFAULT snowflake_nextval() as bigint; with time_column, give existing rows ids made from their time';
