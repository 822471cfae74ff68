-- Step 3, re-keying: this node's identity, and the ids free for new keys.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_identity(job @extschema@._snowflake_convert_job)
RETURNS @extschema@._snowflake_convert_job
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    v_idsource text;
    v_not_before timestamptz;
    v_found text;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_identity');
    -- ------------------------------------ re-keying: which ids are free
    -- The new ids carry this node's identity and milliseconds before
    -- identity_since: every id the node has issued, or will issue, under its
    -- identity is at or after it, so none of them can be one of these --
    -- unless another node issued ids under the same pair before.  What the
    -- node knows of that, it refuses: a pair claimed from the registry (which
    -- hands a released pair to the next node), a pair the registry said
    -- another node retired (identity_not_before, kept in snowflake.state),
    -- an identity_since it does not know.  Then no time is free: with
    -- late_rows => 'nextval' every row gets an id from snowflake_nextval().
    IF job.rekey THEN
        SELECT s.datacenter_id, s.worker_id, s.identity_since, s.identity_source, s.identity_not_before,
               s.sequence_bits, s.datacenter_bits + s.worker_bits, s.epoch, s.lifetime_end
          INTO job.dc, job.worker, job.since, v_idsource, v_not_before,
               job.seq_bits, job.node_width, job.epoch, job.lifetime_end
          FROM @extschema@.snowflake_status s;
        v_found := concat_ws('; ',
            CASE WHEN v_idsource = 'registry' THEN
                'identity_source is registry: the pair is a claim, and the registry hands a released pair to the next node' END,
            CASE WHEN v_not_before IS NOT NULL THEN
                format('identity_not_before is %s: the registry said another node issued ids under the pair until then', v_not_before) END,
            CASE WHEN job.since IS NULL THEN
                'identity_since is null: the node may have issued ids under the pair at any time' END);
        IF v_found = '' THEN
            job.free_until := job.since;
            job.bound := @extschema@.snowflake_min_id(job.since);
        ELSIF job.late_ids THEN
            job.free_until := '-infinity';
            job.bound := job.next_id;
        ELSIF job.since IS NULL AND v_found NOT LIKE '%;%' THEN
            RAISE EXCEPTION 'cannot re-key column % of table %: this node does not know since when it issues ids under its identity',
                            quote_ident(job.col), job.tab
                USING ERRCODE = '55000',
                      DETAIL = format('snowflake_status.identity_since is null for datacenter %s, worker %s: the node may have issued ids under it at any time, so no time is free for new ids.',
                                      job.dc, job.worker),
                      HINT = 'Convert with late_rows => ''nextval'': every row then gets an id from snowflake_nextval(), in the order of its time. Or convert without time_column.';
        ELSE
            RAISE EXCEPTION 'cannot re-key column % of table %: another node may have issued ids under this node''s identity',
                            quote_ident(job.col), job.tab
                USING ERRCODE = '55000',
                      DETAIL = format('The new ids would carry datacenter %s, worker %s at times before this node took that pair. Found: %s.',
                                      job.dc, job.worker, v_found),
                      HINT = 'Convert with late_rows => ''nextval'': every row then gets an id from snowflake_nextval(), in the order of its time. '
                             'Or re-key on a node whose identity is set in its configuration and was never another node''s, or convert without time_column.';
        END IF;
    END IF;
    RETURN job;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_identity(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: the identity and times a re-key may use';
