-- Step 8, re-keying: the rows to re-key and their times, the query of the
-- new keys, and (dry run) whether they fit.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_rekey_plan(job @extschema@._snowflake_convert_job)
RETURNS @extschema@._snowflake_convert_job
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    v_col name := job.col;
    dry_run boolean := job.dry_run;
    v_tab text := job.tab;
    v_tcol name := job.tcol;
    v_tcx text := job.tcx;
    v_dc integer := job.dc;
    v_worker integer := job.worker;
    v_since timestamptz := job.since;
    v_seq_bits integer := job.seq_bits;
    v_node_width integer := job.node_width;
    v_epoch timestamptz := job.epoch;
    v_bound bigint := job.bound;
    v_keys text := job.keys;
    v_rows bigint := job.nrows;
    v_min_t timestamptz := job.min_t;
    v_max_t timestamptz := job.max_t;
    v_plan text := job.plan;
    v_spilled bigint := job.spilled;
    v_max_spill bigint := job.max_spill;
    v_key_early bigint;
    v_key_late bigint;
    v_key_null bigint;
    v_last bigint;
    v_late_t timestamptz;
    v_max_old bigint;
    v_n_early bigint;
    v_n_late bigint;
    v_n_null bigint;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_rekey_plan',
        '@extschema@.snowflake_convert_column(regclass,name,boolean,boolean,name)');
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
    job.keys := v_keys;
    job.nrows := v_rows;
    job.min_t := v_min_t;
    job.max_t := v_max_t;
    job.plan := v_plan;
    job.spilled := v_spilled;
    job.max_spill := v_max_spill;
    RETURN job;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_rekey_plan(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: plan the re-key (with the dry run''s check)';
