-- Running, re-keying: the map of old key to new key (statement j), checked
-- once made.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_key_map(job @extschema@._snowflake_convert_job, j integer)
RETURNS @extschema@._snowflake_convert_job
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    v_last bigint;
    v_overlap boolean;
    v_lo bigint;
    v_hi bigint;
    v_clash bigint;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_key_map');
    EXECUTE job.stmts[j];
    SELECT count(*), count(*) FILTER (WHERE m.spill > 0), coalesce(max(m.spill), 0),
           max(m.new_id) FILTER (WHERE m.spill IS NOT NULL),
           min(m.new_id) <= max(m.old_id) AND max(m.new_id) >= min(m.old_id),
           min(m.new_id), max(m.new_id)
      INTO job.changed, job.spilled, job.max_spill, v_last, v_overlap, v_lo, v_hi
      FROM pg_temp.snowflake_rekey_map m;
    PERFORM @extschema@._snowflake_convert_spill_check(job, v_last);
    -- Late rows (spill NULL) took ids of the conversion's time: how far
    -- from their own.
    IF job.nlate > 0 THEN
        EXECUTE format('SELECT max(%s(m.new_id) - x.t) FROM pg_temp.snowflake_rekey_map m JOIN (SELECT %I AS k, %s AS t FROM %s) x ON x.k = m.old_id WHERE m.spill IS NULL',
                       '@extschema@.snowflake_timestamp', job.col, job.tcx, job.tab)
           INTO job.max_shift;
    END IF;
    -- Rows are updated in ranges of old keys: a new key must not
    -- be some other row's old key, or a later range would
    -- rewrite it again.
    -- (Analyzed first: without statistics the planner may join the map
    -- with itself row by row, for hours on a big one.)
    IF v_overlap THEN
        ANALYZE pg_temp.snowflake_rekey_map;
    END IF;
    IF v_overlap AND EXISTS (SELECT 1 FROM pg_temp.snowflake_rekey_map a
                                JOIN pg_temp.snowflake_rekey_map b ON b.old_id = a.new_id) THEN
        RAISE EXCEPTION 'cannot re-key column % of table %: some new keys are the present keys of other rows',
                        quote_ident(job.col), job.tab
            USING ERRCODE = '55000',
                  HINT = 'Convert without time_column.';
    END IF;
    -- Nor the key of a row that keeps its own (a snowflake id already: one
    -- this node made under the same identity before it moved away and back,
    -- say): the column would hold it twice.  Each new key looked up among
    -- the table's keys in the range of the new ones (the map analyzed, so
    -- that the planner joins it as the large table it may be).
    IF job.changed > 0 THEN
        IF NOT v_overlap THEN
            ANALYZE pg_temp.snowflake_rekey_map;
        END IF;
        EXECUTE format('SELECT m.new_id FROM pg_temp.snowflake_rekey_map m JOIN %2$s t ON t.%1$I = m.new_id
                         WHERE t.%1$I BETWEEN $1 AND $2
                           AND NOT EXISTS (SELECT 1 FROM pg_temp.snowflake_rekey_map k WHERE k.old_id = m.new_id)
                         LIMIT 1', job.col, job.tab)
           INTO v_clash USING v_lo, v_hi;
        IF v_clash IS NOT NULL THEN
            RAISE EXCEPTION 'cannot re-key column % of table %: a new key, %, is the key of a row that keeps it',
                            quote_ident(job.col), job.tab, v_clash
                USING ERRCODE = '23505',
                      DETAIL = format('That row''s key is a snowflake id already, of this node''s identity (datacenter %s, worker %s) at %s: a row re-keyed into that millisecond would get it too.',
                                      job.dc, job.worker, @extschema@.snowflake_timestamp(v_clash)),
                      HINT = 'Convert without time_column; or give this node an identity that no node has ever used (snowflake.worker_id, then reload), and convert again.';
        END IF;
    END IF;
    job.skip_updates := job.changed = 0;    -- every key is its new one already
    RETURN job;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_key_map(@extschema@._snowflake_convert_job, integer) IS
    'snowflake_convert_column, internal: build and check the map of new keys';
