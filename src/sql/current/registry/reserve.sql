-- A configured node's pair.  Called by the node (its key, widths and WAL
-- timeline) at start, after every reload that changes its pair and every
-- minute.  Records the pair as the node's, so that claims never hand it
-- out, and answers with what the node must know:
--   retired_until, retired_by: another node retired the pair until then
--     (the node issues no id under it before that time on its own clock);
--   refused: why the pair is not recorded as the node's (another node holds
--     it), or null.
-- ids_until: a time at or after every id the node has issued (its durable
-- mark); if the node held another pair here (it moved, and its report of
-- leaving that one did not arrive), that pair is recorded as retired until
-- then.  A pair set aside by hand is refused: only the registry's owner
-- gives it to a node (snowflake_registry_assign).  A node of the same cluster (same system identifier) on a later
-- timeline -- a promoted standby -- takes the pair over from its old
-- primary, which is refused from its next reservation on; it proves it is
-- one with the old primary's node secret, which it inherited (secret.sql).
-- A holder silent for 10 minutes (as snowflake_registry_release requires)
-- gives way.  lease: how long the node's confirmation lasts (its
-- snowflake.registry_lease); whoever takes a pair over from a holder whose
-- confirmation may still run -- an old primary still up beside its promoted
-- standby -- is told the pair is retired until that confirmation ends.
COMMENT ON COLUMN @extschema@.snowflake_registry.confirmed_until IS
    'configured: when the node''s last confirmation ends (its snowflake.registry_lease after its last reservation, plus 2 s): a node that takes the pair over issues ids dated later';
CREATE FUNCTION @extschema@.snowflake_registry_reserve(
    node_key text,
    datacenter_bits integer,
    worker_bits integer,
    datacenter_id integer,
    worker_id integer,
    timeline integer,
    ids_until timestamptz,
    node_secret text,
    lease interval,
    OUT retired_until timestamptz,
    OUT retired_by text,
    OUT refused text)
RETURNS record
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn_key text := snowflake_registry_reserve.node_key;
    fn_dc_bits integer := snowflake_registry_reserve.datacenter_bits;
    fn_w_bits integer := snowflake_registry_reserve.worker_bits;
    fn_dc integer := snowflake_registry_reserve.datacenter_id;
    fn_w integer := snowflake_registry_reserve.worker_id;
    fn_tl integer := snowflake_registry_reserve.timeline;
    fn_ids_until timestamptz := snowflake_registry_reserve.ids_until;
    fn_secret text := snowflake_registry_reserve.node_secret;
    fn_hash bytea := @extschema@.snowflake_registry_secret_hash(snowflake_registry_reserve.node_secret);
    fn_lease interval := snowflake_registry_reserve.lease;
    h record;
    own record;
    gone record;
    held boolean;
    since timestamptz := now();
    same_cluster boolean;
BEGIN
    IF fn_key IS NULL OR fn_key = '' THEN
        RAISE EXCEPTION 'snowflake registry: node_key must not be empty'
            USING ERRCODE = '22023';
    END IF;
    IF fn_dc IS NULL OR fn_w IS NULL THEN
        RAISE EXCEPTION 'snowflake registry: datacenter_id and worker_id must not be null'
            USING ERRCODE = '22023';
    END IF;
    IF fn_lease IS NULL OR fn_lease NOT BETWEEN interval '1 second' AND interval '597 seconds' THEN
        RAISE EXCEPTION 'snowflake registry: lease must be between 1 and 597 seconds'
            USING ERRCODE = '22023';
    END IF;
    PERFORM @extschema@.snowflake_registry_lock(fn_dc_bits, fn_w_bits);
    IF fn_dc NOT BETWEEN 0 AND (1 << fn_dc_bits) - 1
       OR fn_w NOT BETWEEN 0 AND (1 << fn_w_bits) - 1 THEN
        RAISE EXCEPTION 'snowflake registry: datacenter_id % and worker_id % do not fit %/% bits',
                        fn_dc, fn_w, fn_dc_bits, fn_w_bits
            USING ERRCODE = '22023';
    END IF;

    -- The node's own rows are acted on with its secret only.
    FOR own IN
        SELECT r.datacenter_id, r.worker_id, r.secret_hash FROM @extschema@.snowflake_registry r
        WHERE r.node_key = fn_key
    LOOP
        PERFORM @extschema@.snowflake_registry_check_secret(fn_key, own.datacenter_id,
                                                              own.worker_id, own.secret_hash,
                                                              fn_secret);
    END LOOP;

    SELECT t.retired_until, t.node_key INTO retired_until, retired_by
    FROM @extschema@.snowflake_registry_retired t
    WHERE t.datacenter_id = fn_dc AND t.worker_id = fn_w
      AND NOT (t.node_key = fn_key
               AND @extschema@.snowflake_registry_secret_ok(t.secret_hash, fn_secret));

    SELECT r.* INTO h FROM @extschema@.snowflake_registry r
    WHERE r.datacenter_id = fn_dc AND r.worker_id = fn_w;
    held := FOUND;
    IF held AND h.node_key = fn_key THEN
        since := h.claimed_at;
    END IF;
    IF held AND h.kind = 'reserved' THEN
        refused := format('the pair is set aside by hand (%s): only the registry''s owner gives '
                          'it to a node, with snowflake_registry_assign(%s, %s, %L)',
                          coalesce(h.note, 'no note'), fn_dc, fn_w, fn_key);
        RETURN;
    END IF;
    IF held AND h.node_key <> fn_key THEN
        same_cluster := split_part(h.node_key, ':', 1) = split_part(fn_key, ':', 1);
        IF same_cluster AND h.timeline IS NOT NULL AND fn_tl IS NOT NULL AND fn_tl < h.timeline THEN
            refused := format('node %s of the same cluster, on a later timeline (%s, this node %s), '
                              'uses this pair: this node is an old primary of a promoted standby',
                              h.node_key, h.timeline, fn_tl);
            RETURN;
        END IF;
        IF NOT (same_cluster AND h.kind = 'configured' AND h.timeline IS NOT NULL
                AND fn_tl IS NOT NULL AND fn_tl > h.timeline
                AND @extschema@.snowflake_registry_secret_ok(h.secret_hash, fn_secret))
           AND h.last_seen > now() - interval '10 minutes' THEN
            refused := format('%s node %s holds this pair (last seen %s s ago)',
                              CASE h.kind WHEN 'claim' THEN 'the registry handed it out:'
                                          ELSE 'configured with it too:' END,
                              h.node_key, floor(extract(epoch FROM now() - h.last_seen)));
            RETURN;
        END IF;
    END IF;

    -- Taken over from a holder whose confirmation may still run: its ids
    -- carry times up to the end of it, so the pair is retired until then.
    IF held AND h.node_key <> fn_key AND h.confirmed_until > now() THEN
        PERFORM @extschema@.snowflake_registry_hold_back(fn_dc, fn_w, h.confirmed_until,
                                                         h.node_key, h.secret_hash);
        IF retired_until IS NULL OR retired_until < h.confirmed_until THEN
            retired_until := h.confirmed_until;
            retired_by := h.node_key;
        END IF;
    END IF;

    -- The pair is this node's now.  Its row elsewhere, if it moved, goes;
    -- that pair is retired until ids_until.
    FOR gone IN
        DELETE FROM @extschema@.snowflake_registry r
        WHERE r.node_key = fn_key AND (r.datacenter_id, r.worker_id) <> (fn_dc, fn_w)
        RETURNING r.datacenter_id, r.worker_id
    LOOP
        IF fn_ids_until IS NOT NULL AND isfinite(fn_ids_until) THEN
            PERFORM @extschema@.snowflake_registry_hold_back(gone.datacenter_id, gone.worker_id,
                                                             fn_ids_until, fn_key, fn_hash);
        END IF;
    END LOOP;
    DELETE FROM @extschema@.snowflake_registry r
    WHERE r.datacenter_id = fn_dc AND r.worker_id = fn_w;
    INSERT INTO @extschema@.snowflake_registry
        (datacenter_id, worker_id, node_key, datacenter_bits, worker_bits, claimed_at,
         last_seen, kind, timeline, secret_hash, confirmed_until)
    VALUES (fn_dc, fn_w, fn_key, fn_dc_bits, fn_w_bits,
            since, now(), 'configured', fn_tl, fn_hash,
            now() + fn_lease + interval '2 seconds');
END
$$;
COMMENT ON FUNCTION @extschema@.snowflake_registry_reserve(text, integer, integer, integer, integer, integer, timestamptz, text, interval) IS
    'a configured node reserves its pair (and learns whether another node retired or holds it); run on the registry server';
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_reserve(text, integer, integer, integer, integer, integer, timestamptz, text, interval) FROM PUBLIC;

-- The 1.5 signature, without a node secret: acts only on rows recorded
-- without one.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_registry_reserve(
    node_key text,
    datacenter_bits integer,
    worker_bits integer,
    datacenter_id integer,
    worker_id integer,
    timeline integer DEFAULT NULL,
    ids_until timestamptz DEFAULT NULL,
    OUT retired_until timestamptz,
    OUT retired_by text,
    OUT refused text)
RETURNS record
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT r.retired_until, r.retired_by, r.refused
    FROM @extschema@.snowflake_registry_reserve(node_key, datacenter_bits, worker_bits,
                                                datacenter_id, worker_id, timeline, ids_until,
                                                NULL::text, interval '597 seconds') r
$$;
COMMENT ON FUNCTION @extschema@.snowflake_registry_reserve(text, integer, integer, integer, integer, integer, timestamptz) IS
    'a configured node of 1.5 reserves its pair (no node secret: only rows recorded without one); run on the registry server';
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_reserve(text, integer, integer, integer, integer, integer, timestamptz) FROM PUBLIC;
