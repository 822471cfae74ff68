-- Running, re-keying: the ranges of old keys the updates run in, and the
-- progress count.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_ranges(job @extschema@._snowflake_convert_job)
RETURNS @extschema@._snowflake_convert_job
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    v_kinds text[] := job.kinds;
    v_changed bigint := job.changed;
    v_bounds bigint[] := job.bounds;
    v_units bigint := job.units;
    v_units_done bigint := job.units_done;
    v_done_rows bigint := job.done_rows;
    v_t0 timestamptz := job.t0;
    v_progress boolean := job.progress;
    v_batch bigint;
    v_nstmts integer;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_ranges',
        '@extschema@.snowflake_convert_column(regclass,name,boolean,boolean,name)');
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
    job.bounds := v_bounds;
    job.units := v_units;
    job.progress := v_progress;
    job.units_done := v_units_done;
    job.done_rows := v_done_rows;
    job.t0 := v_t0;
    RETURN job;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_ranges(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: the ranges the re-key updates run in';

-- Running, re-keying: one UPDATE (statement j), in ranges of old keys or at
-- once, with NOTICEs of progress.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_rewrite(job @extschema@._snowflake_convert_job, j integer)
RETURNS @extschema@._snowflake_convert_job
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $step$
DECLARE
    v_tab text := job.tab;
    v_stmts text[] := job.stmts;
    v_kinds text[] := job.kinds;
    v_bounds bigint[] := job.bounds;
    v_units bigint := job.units;
    v_units_done bigint := job.units_done;
    v_done_rows bigint := job.done_rows;
    v_t0 timestamptz := job.t0;
    v_progress boolean := job.progress;
    v_count bigint;
    v_elapsed double precision;
    v_text text;
    i int;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_rewrite',
        '@extschema@.snowflake_convert_column(regclass,name,boolean,boolean,name)');
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
    ELSE
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
    END IF;
    job.done_rows := v_done_rows;
    job.units_done := v_units_done;
    RETURN job;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_rewrite(@extschema@._snowflake_convert_job, integer) IS
    'snowflake_convert_column, internal: rewrite one column, in ranges, with progress';
