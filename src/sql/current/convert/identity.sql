-- Step 3, re-keying: this node's identity, and the ids free for new keys.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_identity(job @extschema@._snowflake_convert_job)
RETURNS @extschema@._snowflake_convert_job
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    v_idsource text;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_identity');
    -- ------------------------------------ re-keying: which ids are free
    -- The new ids carry this node's identity and milliseconds before
    -- identity_since: every id the node has issued, or will issue, under its
    -- identity is at or after it, so none of them can be one of these.
    -- (Another node that used this identity before is the one thing the
    -- node cannot know: a pair from the registry may have been, so such a
    -- node is refused; for a configured identity the documentation says
    -- what must hold.)
    IF job.rekey THEN
        SELECT s.datacenter_id, s.worker_id, s.identity_since, s.identity_source,
               s.sequence_bits, s.datacenter_bits + s.worker_bits, s.epoch
          INTO job.dc, job.worker, job.since, v_idsource, job.seq_bits, job.node_width, job.epoch
          FROM @extschema@.snowflake_status s;
        IF v_idsource = 'registry' THEN
            RAISE EXCEPTION 'cannot re-key column % of table %: this node''s identity comes from the registry',
                            quote_ident(job.col), job.tab
                USING ERRCODE = '55000',
                      DETAIL = format('The new ids would carry datacenter %s, worker %s at times before this node took that pair; the registry hands a released pair to the next node, so another node may have issued ids under it then.',
                                      job.dc, job.worker),
                      HINT = 'Re-key on a node whose identity is set in its configuration and was never another node''s, or convert without time_column.';
        END IF;
        IF job.since IS NULL THEN
            RAISE EXCEPTION 'cannot re-key column % of table %: this node does not know since when it issues ids under its identity',
                            quote_ident(job.col), job.tab
                USING ERRCODE = '55000',
                      DETAIL = format('snowflake_status.identity_since is null for datacenter %s, worker %s: the node may have issued ids under it at any time, so no time is free for new ids.',
                                      job.dc, job.worker),
                      HINT = 'Give this node an identity that no node has ever used (snowflake.worker_id, then reload): identity_since is then the time of the change. Or convert without time_column.';
        END IF;
        job.bound := @extschema@.snowflake_min_id(job.since);
    END IF;
    RETURN job;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_identity(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: the identity and times a re-key may use';
