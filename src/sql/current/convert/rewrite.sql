-- Running, re-keying: the ranges of old keys the updates run in, and the
-- progress count.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_ranges(job @extschema@._snowflake_convert_job)
RETURNS @extschema@._snowflake_convert_job
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    v_batch bigint;
    v_nstmts integer;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_ranges');
    -- The ranges of old keys, about 50 of them, none under
    -- 100,000 keys: the first key of each.
    v_batch := greatest(100000, ceil(job.changed / 50.0)::bigint);
    SELECT array_agg(k.old_id ORDER BY k.old_id) INTO job.bounds
      FROM (SELECT m.old_id, row_number() OVER (ORDER BY m.old_id) AS rn
              FROM pg_temp.snowflake_rekey_map m) k
     WHERE (k.rn - 1) % v_batch = 0;
    job.bounds := job.bounds || (SELECT max(m.old_id) + 1 FROM pg_temp.snowflake_rekey_map m);
    SELECT count(*) INTO v_nstmts FROM unnest(job.kinds) k
     WHERE k LIKE 'ranges:%' OR k LIKE 'whole:%';
    job.units := v_nstmts * (cardinality(job.bounds) - 1);
    job.progress := cardinality(job.bounds) > 2;
    job.units_done := 0;
    job.done_rows := 0;
    job.t0 := clock_timestamp();
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
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $step$
DECLARE
    v_count bigint;
    v_text text;
    i int;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_rewrite');
    IF job.kinds[j] LIKE 'whole:%' THEN
        IF job.progress THEN
            RAISE NOTICE 're-keying %: updating % in one statement (no index starts with its column)',
                         job.tab, substring(job.stmts[j] FROM '^UPDATE ONLY (.*) AS t SET ');
        END IF;
        EXECUTE job.stmts[j];
        GET DIAGNOSTICS v_count = ROW_COUNT;
        job.done_rows := job.done_rows + v_count;
        job.units_done := job.units_done + cardinality(job.bounds) - 1;
        PERFORM @extschema@._snowflake_convert_progress(job);
    ELSE
        -- The column, as the statement names it.
        v_text := substring(job.stmts[j] FROM ' WHERE m\.old_id = (t\..*);$');
        FOR i IN 1 .. cardinality(job.bounds) - 1 LOOP
            EXECUTE format('%s AND %s >= %s AND %s < %s AND m.old_id >= %s AND m.old_id < %s',
                           rtrim(job.stmts[j], ';'), v_text, job.bounds[i], v_text, job.bounds[i + 1],
                           job.bounds[i], job.bounds[i + 1]);
            GET DIAGNOSTICS v_count = ROW_COUNT;
            job.done_rows := job.done_rows + v_count;
            job.units_done := job.units_done + 1;
            PERFORM @extschema@._snowflake_convert_progress(job);
        END LOOP;
    END IF;
    RETURN job;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_rewrite(@extschema@._snowflake_convert_job, integer) IS
    'snowflake_convert_column, internal: rewrite one column, in ranges, with progress';

-- Running, re-keying: how far the updates are, on big tables (job.progress).
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_progress(job @extschema@._snowflake_convert_job)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    v_elapsed double precision := extract(epoch FROM clock_timestamp() - job.t0);
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_progress');
    IF job.progress THEN
        RAISE NOTICE 're-keying %: % rows updated, % done, % s so far, about % s left',
                     job.tab, job.done_rows, floor(100.0 * job.units_done / job.units) || '%',
                     round(v_elapsed), round(v_elapsed * (job.units - job.units_done) / job.units_done);
    END IF;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_progress(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: the NOTICE of progress';
