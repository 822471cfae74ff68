-- snowflake_convert_column
--
-- Moves an existing serial / bigserial / smallserial, IDENTITY or plain
-- DEFAULT nextval('seq') column onto DEFAULT snowflake_nextval() as bigint,
-- widening every foreign-key column that references it (directly or through
-- a chain) to bigint too; with time_column, gives the rows it keeps new ids
-- made from that column (re-keying), rewriting every column that references
-- them (time_zone: the zone a timestamp without time zone is read in;
-- late_rows: what rows get that no time is free for; map_table: a table of
-- old and new keys to keep).  Returns the statements it ran, or with
-- dry_run the ones it would run, in order, schema-qualified so that a DBA
-- can review them or run them by hand in one transaction.
--
-- Everything it checks, it checks before it changes anything, and it runs in
-- the caller's transaction: a refusal or any error leaves nothing changed.
-- It runs with search_path = pg_catalog, pg_temp, qualifies every name and
-- builds statements with format('%I'), so neither the caller's search_path nor
-- odd names can change what it does; it runs with the caller's rights.
--
-- The steps, in this folder, one job each, hand a _snowflake_convert_job on.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_convert_column(
    table_name regclass,
    column_name name,
    dry_run boolean DEFAULT false,
    drop_sequence boolean DEFAULT false,
    time_column name DEFAULT NULL,
    time_zone text DEFAULT 'UTC',
    late_rows text DEFAULT 'refuse',
    map_table text DEFAULT NULL)
RETURNS SETOF text
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
-- Its big statements are row by row (an index probe per row): compiling
-- them would cost more than it saves, once per batch.
SET jit = off
AS $convert$
DECLARE
    job @extschema@._snowflake_convert_job;
BEGIN
    job.rel := table_name;
    job.col := column_name;
    job.dry_run := dry_run;
    job.drop_sequence := drop_sequence;
    job.rekey := time_column IS NOT NULL;
    job.tcol := time_column;
    job.tz := time_zone;
    job.late_ids := late_rows = 'nextval';
    IF late_rows NOT IN ('refuse', 'nextval') THEN
        RAISE EXCEPTION 'snowflake_convert_column: late_rows must be ''refuse'' or ''nextval'', not %', quote_literal(late_rows)
            USING ERRCODE = '22023';
    END IF;
    job.map_table := map_table;
    job.drop_seq := false;
    job.w_cons := ARRAY[]::oid[];
    job.stmts := ARRAY[]::text[];
    job.kinds := ARRAY[]::text[];
    job.skip_updates := false;

    job := @extschema@._snowflake_convert_target(job);
    job := @extschema@._snowflake_convert_source(job);
    -- Can we issue ids?  Not preloaded, no worker id, a standby:
    -- snowflake_nextval() says so with its own message and hint.  The id is
    -- spent, which is harmless; every id issued from now on is above it.
    -- (Before any lock: on a standby LOCK TABLE would fail first, with a less
    -- useful message.)
    job.next_id := @extschema@.snowflake_nextval();
    job := @extschema@._snowflake_convert_identity(job);
    job := @extschema@._snowflake_convert_chain(job);
    IF @extschema@._snowflake_convert_nothing_to_do(job) THEN
        RETURN;
    END IF;
    PERFORM @extschema@._snowflake_convert_partition_keys(job);
    PERFORM @extschema@._snowflake_convert_dependents(job);
    IF job.rekey THEN
        PERFORM @extschema@._snowflake_convert_rekey_tables(job);
        job := @extschema@._snowflake_convert_rekey_plan(job);
    END IF;
    job := @extschema@._snowflake_convert_sequence(job);
    job := @extschema@._snowflake_convert_statements(job);
    job := @extschema@._snowflake_convert_run(job);
    PERFORM @extschema@._snowflake_convert_report(job);
    IF job.rekey AND coalesce(job.changed, job.nrows) > 0 THEN
        PERFORM @extschema@._snowflake_convert_matviews(job);
    END IF;
    RETURN QUERY SELECT u.stmt FROM unnest(job.stmts) WITH ORDINALITY AS u(stmt, n) ORDER BY u.n;
END
$convert$;
COMMENT ON FUNCTION @extschema@.snowflake_convert_column(regclass, name, boolean, boolean, name, text, text, text) IS
    'move a serial, identity or nextval() column (and the foreign keys that reference it) onto DEFAULT snowflake_nextval() as bigint; with time_column, give existing rows ids made from their time';
