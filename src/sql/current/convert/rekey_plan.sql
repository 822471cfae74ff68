-- Step 8, re-keying: the rows to re-key and their times, the query of the
-- new keys, and (dry run) whether they fit.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_rekey_plan(job @extschema@._snowflake_convert_job)
RETURNS @extschema@._snowflake_convert_job
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    v_cand text;
    v_key_early bigint;
    v_key_late bigint;
    v_key_null bigint;
    v_last bigint;
    v_late_t timestamptz;
    v_n_early bigint;
    v_n_null bigint;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_rekey_plan');
    -- The rows to re-key: every key below the bound (snowflake_min_id of
    -- identity_since: a key at or above it is an id made since) that is not
    -- a snowflake id already.  A key is taken for one, of whatever identity,
    -- when it is at or above snowflake_min_id(epoch + 2 days), whatever its
    -- row's time says now (a time moved since, read in another zone): a
    -- sequence value is that large only after 2 days' worth of ids
    -- (724,775,731,200,000 with the default layout), and is kept as it is.
    -- So a second run changes nothing, after an identity change or a time
    -- moved too.  Each row needs a time from the epoch to before
    -- free_until, or (late_rows => 'nextval') gets snowflake_nextval().
    v_cand := format('%1$I < %2$s AND %1$I < %3$s', job.col, job.bound,
                     @extschema@.snowflake_min_id(job.epoch + interval '2 days'));
    EXECUTE format($q$
        SELECT count(*), min(%2$s), max(%2$s),
               count(*) FILTER (WHERE %2$s IS NULL), min(%1$I) FILTER (WHERE %2$s IS NULL),
               count(*) FILTER (WHERE %2$s < $1),
               (array_agg(%1$I ORDER BY %2$s, %1$I) FILTER (WHERE %2$s < $1))[1],
               count(*) FILTER (WHERE %2$s >= $2),
               (array_agg(%1$I ORDER BY %2$s, %1$I) FILTER (WHERE %2$s >= $2))[1],
               min(%2$s) FILTER (WHERE %2$s >= $2)
          FROM %3$s WHERE %4$s$q$, job.col, job.tcx, job.tab, v_cand)
       INTO job.nrows, job.min_t, job.max_t, v_n_null, v_key_null, v_n_early, v_key_early, job.nlate, v_key_late, v_late_t
      USING job.epoch, date_trunc('milliseconds', job.free_until);
    IF v_n_null > 0 THEN
        RAISE EXCEPTION 'cannot re-key column % of table %: % % no time in %', quote_ident(job.col), job.tab,
                        v_n_null, CASE WHEN v_n_null = 1 THEN 'row has' ELSE 'rows have' END, quote_ident(job.tcol)
            USING ERRCODE = '22004',
                  DETAIL = format('The first of them has %I %s.', job.col, v_key_null),
                  HINT = format('Give those rows a time (UPDATE %s SET %I = ... WHERE %I IS NULL), or delete them, and convert again.',
                                job.tab, job.tcol, job.tcol);
    END IF;
    IF v_n_early > 0 THEN
        RAISE EXCEPTION 'cannot re-key column % of table %: % % % before the snowflake epoch', quote_ident(job.col), job.tab,
                        v_n_early, CASE WHEN v_n_early = 1 THEN 'row has' ELSE 'rows have' END, quote_ident(job.tcol)
            USING ERRCODE = '22008',
                  DETAIL = format('The earliest is %s (%I %s); ids count milliseconds from the epoch, %s.',
                                  job.min_t, job.col, v_key_early, job.epoch),
                  HINT = 'Give those rows a time at or after the epoch, or delete them, and convert again.';
    END IF;
    IF job.nlate > 0 AND NOT job.late_ids THEN
        RAISE EXCEPTION 'cannot re-key column % of table %: % % % at or after %, since when this node has issued ids under its identity',
                        quote_ident(job.col), job.tab, job.nlate,
                        CASE WHEN job.nlate = 1 THEN 'row has' ELSE 'rows have' END, quote_ident(job.tcol), job.since
            USING ERRCODE = '55000',
                  DETAIL = format('The earliest of them is at %s (%I %s). A new id at that time would carry datacenter %s, worker %s, the identity of ids this node may have issued since.',
                                  v_late_t, job.col, v_key_late, job.dc, job.worker),
                  HINT = 'Convert with late_rows => ''nextval'': those rows then get ids from snowflake_nextval(), which decode to the time of the conversion. '
                         'Or convert without time_column.';
    END IF;

    -- The new keys: in the order of (time, old key), each in its row's
    -- millisecond at the next free sequence number; a millisecond that
    -- runs out of sequence numbers spills into the next ones.  With
    -- slot = ms << sequence_bits | sequence, a row's slot is the larger
    -- of its own millisecond's first slot and the previous row's slot + 1,
    -- that is rn + max over the rows so far of (first slot - rn): one
    -- sort, one pass.  Late rows (no free time) take snowflake_nextval() in
    -- the same order; their spill is NULL.
    job.keys := format(
'SELECT old_id::bigint AS old_id,
       (slot >> %1$s << %2$s) | %3$s | (slot & %4$s) AS new_id,
       (slot >> %1$s) - (row_slot >> %1$s) AS spill
  FROM (SELECT old_id, row_slot,
               rn + max(row_slot - rn) OVER (ORDER BY t, old_id ROWS UNBOUNDED PRECEDING) AS slot
          FROM (SELECT %5$I AS old_id, %6$s AS t,
                       %7$s(%6$s) >> %8$s AS row_slot,
                       row_number() OVER (ORDER BY %6$s, %5$I) AS rn
                  FROM %9$s
                 WHERE %10$s AND %6$s < %11$L) r) s',
        job.seq_bits, job.seq_bits + job.node_width,
        @extschema@.snowflake_make_id(job.epoch, job.dc, job.worker, 0), (1::bigint << job.seq_bits) - 1,
        job.col, job.tcx, '@extschema@.snowflake_min_id', job.node_width, job.tab, v_cand, job.free_until);
    IF job.late_ids THEN
        job.keys := job.keys || format(
'
UNION ALL
SELECT old_id::bigint, %1$s(), NULL
  FROM (SELECT %2$I AS old_id FROM %3$s WHERE %4$s AND %5$s >= %6$L ORDER BY %5$s, %2$I) l',
            '@extschema@.snowflake_nextval', job.col, job.tab, v_cand, job.tcx, job.free_until);
    END IF;
    job.plan := format('%s %s of %s from %s', job.nrows, CASE WHEN job.nrows = 1 THEN 'row' ELSE 'rows' END,
                     job.tab, quote_ident(job.tcol))
              || CASE WHEN job.tz IS NOT NULL THEN format(' read in time zone %s', job.tz) ELSE '' END
              || CASE WHEN job.nrows > 0 THEN format(' (%s to %s)', job.min_t, job.max_t) ELSE '' END;
    IF job.dry_run THEN
        -- What the keys would be, without keeping them: how far rows
        -- spill, and whether the last ones stay before identity_since.
        EXECUTE format('SELECT count(*) FILTER (WHERE spill > 0), coalesce(max(spill), 0), max(new_id) FROM (%s) k WHERE spill IS NOT NULL', job.keys)
           INTO job.spilled, job.max_spill, v_last;
        PERFORM @extschema@._snowflake_convert_spill_check(job, v_last);
    END IF;
    RETURN job;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_rekey_plan(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: plan the re-key (with the dry run''s check)';

-- Re-keying: the new keys must end before identity_since (last: the largest);
-- rows beyond a millisecond's sequence numbers spill into the next ones.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_spill_check(job @extschema@._snowflake_convert_job, v_last bigint)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_spill_check');
    IF v_last >= job.bound THEN
        RAISE EXCEPTION 'cannot re-key column % of table %: its last rows would spill into %, since when this node has issued ids under its identity',
                        quote_ident(job.col), job.tab, job.since
            USING ERRCODE = '55000',
                  DETAIL = format('%s %s into following milliseconds, by up to %s ms: a millisecond holds %s ids.',
                                  job.spilled, CASE WHEN job.spilled = 1 THEN 'row spills' ELSE 'rows spill' END,
                                  job.max_spill, 1::bigint << job.seq_bits),
                  HINT = 'Convert without time_column; or give this node an identity that no node has ever used (snowflake.worker_id, then reload), '
                         'and convert again if snowflake_status.identity_since is then the time of the change (a node that used more identities than it remembers has none).';
    END IF;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_spill_check(@extschema@._snowflake_convert_job, bigint) IS
    'snowflake_convert_column, internal: refuse new keys that would reach identity_since';
