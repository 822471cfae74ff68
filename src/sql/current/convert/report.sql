-- Last: what was done (or, in a dry run, would be), said once it is done.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_report(job @extschema@._snowflake_convert_job)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    v_spill_detail text;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_report');
    IF job.rekey THEN
        v_spill_detail := CASE WHEN job.spilled = 0 THEN
                                   format('No millisecond holds more of these rows than its %s sequence numbers: each id decodes to its row''s %I, to the millisecond.',
                                          1::bigint << job.seq_bits, job.tcol)
                               ELSE format('%s %s into following milliseconds, by at most %s ms: a millisecond holds %s ids, and rows beyond them take the next ones, in order.',
                                           job.spilled, CASE WHEN job.spilled = 1 THEN 'row spills' ELSE 'rows spill' END,
                                           job.max_spill, 1::bigint << job.seq_bits) END
                          || format(' The ids carry datacenter %s, worker %s and times before this node took that identity (snowflake_status.identity_since).',
                                    job.dc, job.worker)
                          || CASE WHEN job.nlate > 0 THEN ' Ids from snowflake_nextval() decode to the time of the conversion instead.' ELSE '' END;
        IF job.nrows = 0 THEN
            RAISE NOTICE 'nothing to re-key: every key of % is a snowflake id already', job.tab
                USING DETAIL = format('A key counts as one when it is at or above snowflake_min_id(identity_since)%s, or at or above %s, snowflake_min_id of the epoch plus 2 days, whatever its row''s %I says.',
                                      CASE WHEN job.free_until = '-infinity' THEN ' (unknown here)' ELSE '' END,
                                      @extschema@.snowflake_min_id(job.epoch + interval '2 days'), job.tcol);
        ELSIF job.dry_run THEN
            RAISE NOTICE 'would re-key %', job.plan
                                         || CASE WHEN job.nlate > 0
                                                 THEN format('; %s of them would get ids from snowflake_nextval()', job.nlate)
                                                 ELSE '' END
                USING DETAIL = v_spill_detail;
        ELSE
            RAISE NOTICE 're-keyed %', job.plan
                                       || CASE WHEN job.changed < job.nrows
                                               THEN format('; %s of them had their new key already', job.nrows - job.changed)
                                               ELSE '' END
                                       || CASE WHEN job.nlate > 0
                                               THEN format('; %s %s got ids from snowflake_nextval(), up to %s ms after %s',
                                                           job.nlate,
                                                           CASE WHEN job.free_until = '-infinity' THEN 'of them (no time is free under this identity)'
                                                                ELSE format('%s at or after identity_since %s', CASE WHEN job.nlate = 1 THEN 'row' ELSE 'rows' END, job.since) END,
                                                           round(extract(epoch FROM job.max_shift) * 1000),
                                                           CASE WHEN job.nlate = 1 THEN 'its time' ELSE 'their time' END)
                                               ELSE '' END
                                       || CASE WHEN job.done_rows > job.changed
                                               THEN format('; %s rows updated in all, the rows that reference them included', job.done_rows)
                                               ELSE '' END
                USING DETAIL = v_spill_detail;
        END IF;
    END IF;
    -- Said once it is done (or, in a dry run, would be).
    IF job.source = 'identity' AND NOT job.drop_sequence AND job.seq IS NOT NULL THEN
        RAISE NOTICE 'dropping the identity of column % of table % drops its sequence %',
                     quote_ident(job.col), job.tab, job.seq_name
            USING DETAIL = 'An identity column''s sequence belongs to the identity: PostgreSQL drops it with DROP IDENTITY.';
    END IF;
    IF job.kept_detail IS NOT NULL THEN
        RAISE NOTICE 'sequence % is kept: other objects use it', job.seq_name
            USING DETAIL = job.kept_detail;
    END IF;
    RETURN;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_report(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: the closing NOTICEs';
