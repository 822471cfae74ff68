-- Running: the statements in order (a dry run runs none), after the check
-- that every value already in the column is below the next id.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_run(job @extschema@._snowflake_convert_job)
RETURNS @extschema@._snowflake_convert_job
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $step$
DECLARE
    v_max bigint;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_run');
    IF NOT job.dry_run THEN
        EXECUTE job.stmts[1];   -- the LOCK (held already, table by table, since the checks)
    END IF;
    -- Every id from now on is above next_id: the values already in the
    -- column (read under the lock) must be below it, or new ids could
    -- collide with old ones.  (Re-keyed values end below identity_since;
    -- the largest value, if it stays, is a key at or above it.)
    EXECUTE format('SELECT max(%I)::bigint FROM %s', job.col, job.tab) INTO v_max;
    IF v_max >= job.next_id THEN
        RAISE EXCEPTION 'cannot convert column % of table %: it holds values at or above the next snowflake id',
                        quote_ident(job.col), job.tab
            USING ERRCODE = '55000',
                  DETAIL = format('Its largest value is %s; the next id this node issues is above %s.', v_max, job.next_id),
                  HINT = 'New ids would collide with existing ones. Renumber those rows, or keep the column as it is.';
    END IF;
    IF NOT job.dry_run THEN
        FOR j IN 2 .. cardinality(job.stmts) LOOP
            IF job.kinds[j] = 'map' THEN
                job := @extschema@._snowflake_convert_key_map(job, j);
            ELSIF job.kinds[j] LIKE 'ranges:%' OR job.kinds[j] LIKE 'whole:%' THEN
                CONTINUE WHEN job.skip_updates;
                IF job.bounds IS NULL THEN
                    job := @extschema@._snowflake_convert_ranges(job);
                END IF;
                job := @extschema@._snowflake_convert_rewrite(job, j);
            ELSIF job.kinds[j] = 'fk' THEN
                PERFORM @extschema@._snowflake_convert_constraint(job, j);
            ELSE
                EXECUTE job.stmts[j];
            END IF;
        END LOOP;
    END IF;
    RETURN job;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_run(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: run the statements';

-- Running, re-keying: a foreign key of the chain put back (statement j),
-- which checks every row once; announced on big tables.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_constraint(job @extschema@._snowflake_convert_job, j integer)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $step$
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_constraint');
    IF job.progress THEN
        RAISE NOTICE 're-keying %: checking every row against its foreign key: %', job.tab, job.stmts[j];
    END IF;
    EXECUTE job.stmts[j];
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_constraint(@extschema@._snowflake_convert_job, integer) IS
    'snowflake_convert_column, internal: put a foreign key of the chain back';
