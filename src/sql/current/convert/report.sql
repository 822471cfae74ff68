-- Last: what was done (or, in a dry run, would be), said once it is done.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_report(job @extschema@._snowflake_convert_job)
RETURNS void
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    v_col name := job.col;
    dry_run boolean := job.dry_run;
    drop_sequence boolean := job.drop_sequence;
    v_tab text := job.tab;
    v_source text := job.source;
    v_seq oid := job.seq;
    v_seq_name text := job.seq_name;
    v_kept_detail text := job.kept_detail;
    v_rekey boolean := job.rekey;
    v_tcol name := job.tcol;
    v_dc integer := job.dc;
    v_worker integer := job.worker;
    v_seq_bits integer := job.seq_bits;
    v_rows bigint := job.nrows;
    v_plan text := job.plan;
    v_changed bigint := job.changed;
    v_spilled bigint := job.spilled;
    v_max_spill bigint := job.max_spill;
    v_done_rows bigint := job.done_rows;
    v_spill_detail text;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_report',
        '@extschema@.snowflake_convert_column(regclass,name,boolean,boolean,name)');
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
    RETURN;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_report(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: the closing NOTICEs';
