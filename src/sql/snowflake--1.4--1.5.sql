-- snowflake 1.4 -> 1.5.
\echo Use "ALTER EXTENSION snowflake UPDATE TO '1.5'" to load this file. \quit

-- ===========================================================================
-- snowflake_status: identity_since, retired_identity, retired_until
--
-- What the node knows of the identities it has issued ids under:
--   identity_since    every id this node has issued, or will issue, under its
--                     current (datacenter_id, worker_id) carries a time at or
--                     after it; null where the node cannot know (a state
--                     file from before 1.5 that already had ids, an identity
--                     it may have used before what it remembers);
--   retired_identity  'datacenter_id/worker_id' of the identity it had before
--                     its last identity change, or null;
--   retired_until     the latest time any id under that identity carries
--                     (ids borrowed ahead of the clock included): another
--                     node may take that identity once its own clock is past
--                     this time.
-- ===========================================================================
DROP VIEW @extschema@.snowflake_status;
DROP FUNCTION @extschema@.snowflake_status();

CREATE FUNCTION @extschema@.snowflake_status(
    OUT epoch timestamptz,
    OUT timestamp_bits integer,
    OUT datacenter_bits integer,
    OUT worker_bits integer,
    OUT sequence_bits integer,
    OUT datacenter_id integer,
    OUT worker_id integer,
    OUT clock_backward_policy text,
    OUT max_clock_backward_ms integer,
    OUT random_sequence_start boolean,
    OUT last_id bigint,
    OUT ids_issued bigint,
    OUT sequence_exhaustions bigint,
    OUT clock_backward_events bigint,
    OUT max_clock_backward_step_ms bigint,
    OUT borrowed_ahead_ms bigint,
    OUT durable_mark timestamptz,
    OUT durable_writes bigint,
    OUT lifetime_end timestamptz,
    OUT identity_source text,
    OUT identity_since timestamptz,
    OUT retired_identity text,
    OUT retired_until timestamptz)
RETURNS record
AS 'MODULE_PATHNAME', 'snowflake_status'
LANGUAGE C VOLATILE PARALLEL SAFE;

CREATE VIEW @extschema@.snowflake_status AS SELECT * FROM @extschema@.snowflake_status();
COMMENT ON VIEW @extschema@.snowflake_status IS 'the generator of this node: layout, identity, counters, durable mark';
-- ===========================================================================
-- end of snowflake_status: identity_since, retired_identity, retired_until
-- ===========================================================================

-- ===========================================================================
-- The registry: handovers, and the pairs that configured nodes use
--
-- A pair a node left is retired until the latest time any of its ids under
-- that pair carries (snowflake_status.retired_until): the node reports it
-- (snowflake_registry_retire), and claims never hand the pair to another
-- node before that time plus a clock-skew margin of one second (NTP steps a
-- clock that is off by more than 128 ms; a second is eight times that, and
-- costs a handover nothing but a second).
--
-- Pairs that configured nodes use are reserved, so that claims never hand
-- them out: a configured node that also sets snowflake.registry reserves
-- its pair at start, after every reload that changes it and every minute
-- (snowflake_registry_reserve with a node key), and is told when another
-- node retired the pair until a time still to come, or holds it; a pair can
-- also be set aside by hand (snowflake_registry_reserve with a note).
-- ===========================================================================
ALTER TABLE @extschema@.snowflake_registry
    ADD COLUMN kind text NOT NULL DEFAULT 'claim'
        CHECK (kind IN ('claim', 'configured', 'reserved')),
    ADD COLUMN timeline integer,
    ADD COLUMN note text;
COMMENT ON COLUMN @extschema@.snowflake_registry.kind IS
    'claim: handed out to a node by the registry; configured: reserved by a node configured with it; reserved: set aside by hand';
COMMENT ON COLUMN @extschema@.snowflake_registry.timeline IS
    'configured: the WAL timeline of the node when it last reserved (a promoted standby has a later one than its old primary)';
COMMENT ON COLUMN @extschema@.snowflake_registry.note IS
    'reserved: what the pair is set aside for';

CREATE TABLE @extschema@.snowflake_registry_retired (
    datacenter_id integer NOT NULL,
    worker_id integer NOT NULL,
    retired_until timestamptz NOT NULL,
    node_key text NOT NULL,
    retired_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (datacenter_id, worker_id)
);
COMMENT ON TABLE @extschema@.snowflake_registry_retired IS
    'pairs nodes left: no id under the pair carries a time after retired_until (node_key: the node that left it)';
SELECT pg_catalog.pg_extension_config_dump('@extschema@.snowflake_registry_retired', '');
REVOKE ALL ON TABLE @extschema@.snowflake_registry_retired FROM PUBLIC;

-- Claims: as in 1.3, but a pair another node retired is not handed out
-- before its retired_until plus the margin, and the node's own row is found
-- whatever its kind (a node moved from a configured identity to the
-- registry keeps its pair).
CREATE OR REPLACE FUNCTION @extschema@.snowflake_registry_renew(
    node_key text,
    datacenter_bits integer,
    worker_bits integer,
    held_datacenter_id integer,
    held_worker_id integer,
    OUT datacenter_id integer,
    OUT worker_id integer)
RETURNS record
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn_key text := snowflake_registry_renew.node_key;
    fn_dc_bits integer := snowflake_registry_renew.datacenter_bits;
    fn_w_bits integer := snowflake_registry_renew.worker_bits;
    d integer;
    w integer;
    other_dc_bits integer;
    other_w_bits integer;
BEGIN
    IF fn_key IS NULL OR fn_key = '' THEN
        RAISE EXCEPTION 'snowflake registry: node_key must not be empty'
            USING ERRCODE = '22023';
    END IF;
    IF fn_dc_bits IS NULL OR fn_w_bits IS NULL
       OR fn_dc_bits NOT BETWEEN 0 AND 27 OR fn_w_bits NOT BETWEEN 0 AND 27 THEN
        RAISE EXCEPTION 'snowflake registry: datacenter_bits and worker_bits must be between 0 and 27'
            USING ERRCODE = '22023';
    END IF;
    IF (held_datacenter_id IS NULL) <> (held_worker_id IS NULL) THEN
        RAISE EXCEPTION 'snowflake registry: held_datacenter_id and held_worker_id must both be given or both be null'
            USING ERRCODE = '22023';
    END IF;
    -- One claimer at a time: the rules below read the whole table.
    LOCK TABLE @extschema@.snowflake_registry IN SHARE ROW EXCLUSIVE MODE;

    -- One layout per registry.
    SELECT r.datacenter_bits, r.worker_bits INTO other_dc_bits, other_w_bits
    FROM @extschema@.snowflake_registry r
    WHERE r.datacenter_bits IS NOT NULL
      AND (r.datacenter_bits, r.worker_bits) <> (fn_dc_bits, fn_w_bits)
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'the snowflake registry holds claims made under other widths'
            USING ERRCODE = '22023',
                  DETAIL = format('Its claims were made with datacenter_bits = %s and '
                                  'worker_bits = %s; this node asks with %s and %s. The same '
                                  'pair means other node bits under other widths, so ids could '
                                  'collide.', other_dc_bits, other_w_bits, fn_dc_bits, fn_w_bits),
                  HINT = 'Give every node of a registry the same snowflake.datacenter_bits and '
                         'snowflake.worker_bits, or use one registry database per layout.';
    END IF;

    -- The node's claim: the same pair at every restart and renewal.
    UPDATE @extschema@.snowflake_registry r
    SET last_seen = now(), datacenter_bits = fn_dc_bits, worker_bits = fn_w_bits,
        kind = 'claim', timeline = NULL
    WHERE r.node_key = fn_key
    RETURNING r.datacenter_id, r.worker_id INTO d, w;
    IF FOUND THEN
        datacenter_id := d;
        worker_id := w;
        RETURN;
    END IF;

    -- No claim (a first start, a restored registry, a claim released by
    -- hand): the pair the node holds if it is still free, else the lowest
    -- free pair.  A pair is free when nobody holds or reserves it and no
    -- other node retired it until a time still to come (plus the margin).
    IF held_datacenter_id BETWEEN 0 AND (1 << fn_dc_bits) - 1
       AND held_worker_id BETWEEN 0 AND (1 << fn_w_bits) - 1
       AND NOT EXISTS (SELECT 1 FROM @extschema@.snowflake_registry r
                       WHERE r.datacenter_id = held_datacenter_id
                         AND r.worker_id = held_worker_id)
       AND NOT EXISTS (SELECT 1 FROM @extschema@.snowflake_registry_retired t
                       WHERE t.datacenter_id = held_datacenter_id
                         AND t.worker_id = held_worker_id
                         AND t.node_key <> fn_key
                         AND t.retired_until + interval '1 second' > now()) THEN
        d := held_datacenter_id;
        w := held_worker_id;
    ELSE
        SELECT dd, ww INTO d, w
        FROM generate_series(0, (1 << fn_dc_bits) - 1) dd,
             generate_series(0, (1 << fn_w_bits) - 1) ww
        WHERE NOT EXISTS (SELECT 1 FROM @extschema@.snowflake_registry r
                          WHERE r.datacenter_id = dd AND r.worker_id = ww)
          AND NOT EXISTS (SELECT 1 FROM @extschema@.snowflake_registry_retired t
                          WHERE t.datacenter_id = dd AND t.worker_id = ww
                            AND t.node_key <> fn_key
                            AND t.retired_until + interval '1 second' > now())
        ORDER BY dd, ww
        LIMIT 1;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'no free (datacenter_id, worker_id) left in the snowflake registry'
                USING ERRCODE = '53400',
                      DETAIL = format('All %s pairs of a %s/%s-bit layout are claimed, reserved '
                                      'or retired until a time still to come.',
                                      (1 << fn_dc_bits) * (1 << fn_w_bits), fn_dc_bits, fn_w_bits),
                      HINT = 'Release claims of retired nodes with snowflake_registry_release().';
        END IF;
    END IF;
    -- Handed over: the pair is no longer retired.
    DELETE FROM @extschema@.snowflake_registry_retired t
    WHERE t.datacenter_id = d AND t.worker_id = w;
    INSERT INTO @extschema@.snowflake_registry
        (datacenter_id, worker_id, node_key, datacenter_bits, worker_bits, claimed_at, last_seen)
    VALUES (d, w, fn_key, fn_dc_bits, fn_w_bits, now(), now());
    datacenter_id := d;
    worker_id := w;
END
$$;

-- A node left a pair: every id it issued under it carries a time at or
-- before retired_until.  Its claim or reservation of the pair goes, and the
-- pair is not handed to another node before that time (plus the margin).
CREATE FUNCTION @extschema@.snowflake_registry_retire(
    node_key text,
    datacenter_id integer,
    worker_id integer,
    retired_until timestamptz)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn_key text := snowflake_registry_retire.node_key;
    fn_dc integer := snowflake_registry_retire.datacenter_id;
    fn_w integer := snowflake_registry_retire.worker_id;
    fn_until timestamptz := snowflake_registry_retire.retired_until;
BEGIN
    IF fn_key IS NULL OR fn_key = '' THEN
        RAISE EXCEPTION 'snowflake registry: node_key must not be empty'
            USING ERRCODE = '22023';
    END IF;
    IF fn_dc IS NULL OR fn_w IS NULL OR fn_dc < 0 OR fn_w < 0 OR fn_until IS NULL
       OR NOT isfinite(fn_until) THEN
        RAISE EXCEPTION 'snowflake registry: a retired pair needs a non-negative datacenter_id and worker_id and a finite retired_until'
            USING ERRCODE = '22023';
    END IF;
    LOCK TABLE @extschema@.snowflake_registry IN SHARE ROW EXCLUSIVE MODE;
    DELETE FROM @extschema@.snowflake_registry r
    WHERE r.node_key = fn_key AND r.datacenter_id = fn_dc AND r.worker_id = fn_w;
    -- Reported again (a restarted node), or by another node too: the
    -- latest time stands.
    INSERT INTO @extschema@.snowflake_registry_retired AS t
        (datacenter_id, worker_id, retired_until, node_key, retired_at)
    VALUES (fn_dc, fn_w, fn_until, fn_key, now())
    ON CONFLICT ON CONSTRAINT snowflake_registry_retired_pkey DO UPDATE
    SET node_key = CASE WHEN excluded.retired_until >= t.retired_until
                        THEN excluded.node_key ELSE t.node_key END,
        retired_until = greatest(t.retired_until, excluded.retired_until),
        retired_at = now();
END
$$;
COMMENT ON FUNCTION @extschema@.snowflake_registry_retire(text, integer, integer, timestamptz) IS
    'a node left a pair: no other node gets it before retired_until (plus one second); run on the registry server';

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
-- then.  A pair set aside by hand goes to the first configured node that
-- reserves it.  A node of the same cluster (same system identifier) on a later
-- timeline -- a promoted standby -- takes the pair over from its old
-- primary, which is refused from its next reservation on.  A holder silent
-- for 10 minutes (as snowflake_registry_release requires) gives way.
CREATE FUNCTION @extschema@.snowflake_registry_reserve(
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
    h record;
    gone record;
    held boolean;
    since timestamptz := now();
    same_cluster boolean;
    other_dc_bits integer;
    other_w_bits integer;
BEGIN
    IF fn_key IS NULL OR fn_key = '' THEN
        RAISE EXCEPTION 'snowflake registry: node_key must not be empty'
            USING ERRCODE = '22023';
    END IF;
    IF fn_dc_bits IS NULL OR fn_w_bits IS NULL
       OR fn_dc_bits NOT BETWEEN 0 AND 27 OR fn_w_bits NOT BETWEEN 0 AND 27 THEN
        RAISE EXCEPTION 'snowflake registry: datacenter_bits and worker_bits must be between 0 and 27'
            USING ERRCODE = '22023';
    END IF;
    IF fn_dc IS NULL OR fn_w IS NULL THEN
        RAISE EXCEPTION 'snowflake registry: datacenter_id and worker_id must not be null'
            USING ERRCODE = '22023';
    END IF;
    IF fn_dc NOT BETWEEN 0 AND (1 << fn_dc_bits) - 1
       OR fn_w NOT BETWEEN 0 AND (1 << fn_w_bits) - 1 THEN
        RAISE EXCEPTION 'snowflake registry: datacenter_id % and worker_id % do not fit %/% bits',
                        fn_dc, fn_w, fn_dc_bits, fn_w_bits
            USING ERRCODE = '22023';
    END IF;
    LOCK TABLE @extschema@.snowflake_registry IN SHARE ROW EXCLUSIVE MODE;

    SELECT r.datacenter_bits, r.worker_bits INTO other_dc_bits, other_w_bits
    FROM @extschema@.snowflake_registry r
    WHERE r.datacenter_bits IS NOT NULL
      AND (r.datacenter_bits, r.worker_bits) <> (fn_dc_bits, fn_w_bits)
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'the snowflake registry holds claims made under other widths'
            USING ERRCODE = '22023',
                  DETAIL = format('Its claims were made with datacenter_bits = %s and '
                                  'worker_bits = %s; this node asks with %s and %s. The same '
                                  'pair means other node bits under other widths, so ids could '
                                  'collide.', other_dc_bits, other_w_bits, fn_dc_bits, fn_w_bits),
                  HINT = 'Give every node of a registry the same snowflake.datacenter_bits and '
                         'snowflake.worker_bits, or use one registry database per layout.';
    END IF;

    SELECT t.retired_until, t.node_key INTO retired_until, retired_by
    FROM @extschema@.snowflake_registry_retired t
    WHERE t.datacenter_id = fn_dc AND t.worker_id = fn_w AND t.node_key <> fn_key;

    SELECT r.* INTO h FROM @extschema@.snowflake_registry r
    WHERE r.datacenter_id = fn_dc AND r.worker_id = fn_w;
    held := FOUND;
    IF held AND h.node_key = fn_key THEN
        since := h.claimed_at;
    END IF;
    IF held AND h.node_key <> fn_key AND h.kind <> 'reserved' THEN
        same_cluster := split_part(h.node_key, ':', 1) = split_part(fn_key, ':', 1);
        IF same_cluster AND h.timeline IS NOT NULL AND fn_tl IS NOT NULL AND fn_tl < h.timeline THEN
            refused := format('node %s of the same cluster, on a later timeline (%s, this node %s), '
                              'uses this pair: this node is an old primary of a promoted standby',
                              h.node_key, h.timeline, fn_tl);
            RETURN;
        END IF;
        IF NOT (same_cluster AND h.kind = 'configured' AND h.timeline IS NOT NULL
                AND fn_tl IS NOT NULL AND fn_tl > h.timeline)
           AND h.last_seen > now() - interval '10 minutes' THEN
            refused := format('%s node %s holds this pair (last seen %s s ago)',
                              CASE h.kind WHEN 'claim' THEN 'the registry handed it out:'
                                          ELSE 'configured with it too:' END,
                              h.node_key, floor(extract(epoch FROM now() - h.last_seen)));
            RETURN;
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
            INSERT INTO @extschema@.snowflake_registry_retired AS t
                (datacenter_id, worker_id, retired_until, node_key, retired_at)
            VALUES (gone.datacenter_id, gone.worker_id, fn_ids_until, fn_key, now())
            ON CONFLICT ON CONSTRAINT snowflake_registry_retired_pkey DO UPDATE
            SET retired_until = greatest(t.retired_until, excluded.retired_until),
                retired_at = now();
        END IF;
    END LOOP;
    DELETE FROM @extschema@.snowflake_registry r
    WHERE r.datacenter_id = fn_dc AND r.worker_id = fn_w;
    INSERT INTO @extschema@.snowflake_registry
        (datacenter_id, worker_id, node_key, datacenter_bits, worker_bits, claimed_at,
         last_seen, kind, timeline)
    VALUES (fn_dc, fn_w, fn_key, fn_dc_bits, fn_w_bits,
            since, now(), 'configured', fn_tl);
END
$$;
COMMENT ON FUNCTION @extschema@.snowflake_registry_reserve(text, integer, integer, integer, integer, integer, timestamptz) IS
    'a configured node reserves its pair (and learns whether another node retired or holds it); run on the registry server';

-- Sets a pair aside by hand, for a configured node that does not talk to
-- the registry: claims never hand it out.  Refused while another node
-- holds it.  snowflake_registry_release('reserved:DC/WORKER') frees it.
CREATE FUNCTION @extschema@.snowflake_registry_reserve(
    datacenter_id integer,
    worker_id integer,
    note text)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn_dc integer := snowflake_registry_reserve.datacenter_id;
    fn_w integer := snowflake_registry_reserve.worker_id;
    k text := format('reserved:%s/%s', snowflake_registry_reserve.datacenter_id,
                     snowflake_registry_reserve.worker_id);
    holder text;
BEGIN
    IF fn_dc IS NULL OR fn_w IS NULL OR fn_dc < 0 OR fn_w < 0 THEN
        RAISE EXCEPTION 'snowflake registry: datacenter_id and worker_id must be non-negative'
            USING ERRCODE = '22023';
    END IF;
    LOCK TABLE @extschema@.snowflake_registry IN SHARE ROW EXCLUSIVE MODE;
    SELECT r.node_key INTO holder FROM @extschema@.snowflake_registry r
    WHERE r.datacenter_id = fn_dc AND r.worker_id = fn_w;
    IF FOUND AND holder <> k THEN
        RAISE EXCEPTION 'datacenter_id % worker_id % is held by node % in the snowflake registry',
                        fn_dc, fn_w, holder
            USING ERRCODE = '23505',
                  HINT = 'A pair is reserved for a configured node before another node claims it.';
    END IF;
    INSERT INTO @extschema@.snowflake_registry AS r
        (datacenter_id, worker_id, node_key, kind, note, claimed_at, last_seen)
    VALUES (fn_dc, fn_w, k, 'reserved', snowflake_registry_reserve.note, now(), now())
    ON CONFLICT (node_key) DO UPDATE SET note = excluded.note;
    RETURN k;
END
$$;
COMMENT ON FUNCTION @extschema@.snowflake_registry_reserve(integer, integer, text) IS
    'set a pair aside for a configured node, so that no claim hands it out; run on the registry server';

-- Release: as in 1.4, and a pair set aside by hand is released at once.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_registry_release(node_key text)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn_key text := snowflake_registry_release.node_key;
    seen timestamptz;
BEGIN
    DELETE FROM @extschema@.snowflake_registry r
    WHERE r.node_key = fn_key
      AND (r.kind = 'reserved' OR r.last_seen <= now() - interval '10 minutes');
    IF FOUND THEN
        RETURN true;
    END IF;
    SELECT r.last_seen INTO seen FROM @extschema@.snowflake_registry r WHERE r.node_key = fn_key;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    RAISE EXCEPTION 'the snowflake registry claim of node % was renewed less than 10 minutes ago',
                    fn_key
        USING ERRCODE = '55006',
              DETAIL = format('It was last renewed %s s ago. A running node renews its claim '
                              'every minute; releasing the claim of a node that still issues '
                              'ids lets another node take its pair.',
                              floor(extract(epoch FROM now() - seen))),
              HINT = 'Stop the node for good first (see "Retiring a node" in the snowflake '
                     'documentation, docs/operations.md); its claim can be released once it has '
                     'not been renewed for 10 minutes.';
END
$$;

REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_retire(text, integer, integer, timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_reserve(text, integer, integer, integer, integer, integer, timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_reserve(integer, integer, text) FROM PUBLIC;
-- ===========================================================================
-- end of the registry: handovers, and the pairs that configured nodes use
-- ===========================================================================

-- ===========================================================================
-- snowflake_cluster_check(): a node using an identity another node retired
--
-- As in 1.4, with one more problem: identity_recently_retired, a node whose
-- (datacenter_id, worker_id) another node of the cluster retired
-- (snowflake_status.retired_identity) while this node's identity_since is
-- not after that node's retired_until plus the one-second clock-skew margin,
-- or is unknown: ids of the two could be equal.  Each node's status is read
-- as a whole row, so that nodes at older versions still answer.
-- ===========================================================================
CREATE OR REPLACE FUNCTION @extschema@.snowflake_cluster_check(
    OUT node_name text,
    OUT node_port integer,
    OUT group_id integer,
    OUT datacenter_id integer,
    OUT worker_id integer,
    OUT epoch timestamptz,
    OUT layout text,
    OUT extension_version text,
    OUT problem text,
    OUT detail text)
RETURNS SETOF record
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $check$
DECLARE
    v_schema text;
    v_version text;
    v_group integer;
    v_ref record;
    v_ref_ok boolean := true;
    v_version_cmd text;
    v_status_cmd text;
    n record;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION 'snowflake_cluster_check() needs Citus'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'It asks the nodes of the Citus cluster of this database, and Citus '
                           'is not installed in this database.',
                  HINT = 'On a server without Citus, SELECT * FROM snowflake_status shows its identity.';
    END IF;
    EXECUTE 'SELECT groupid FROM pg_catalog.pg_dist_local_group' INTO v_group;
    IF v_group IS DISTINCT FROM 0 THEN
        RAISE EXCEPTION 'snowflake_cluster_check() runs on the Citus coordinator'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('This node is in Citus group %s; the coordinator is group 0.', v_group);
    END IF;
    SELECT quote_ident(ns.nspname), e.extversion INTO v_schema, v_version
    FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace ns ON ns.oid = e.extnamespace
    WHERE e.extname = 'snowflake';

    -- What the coordinator runs with: the reference for the other nodes.
    BEGIN
        EXECUTE format('SELECT (extract(epoch FROM s.epoch) * 1000)::bigint AS epoch_ms, '
                       's.datacenter_bits, s.worker_bits, s.sequence_bits FROM %s.snowflake_status s',
                       v_schema) INTO v_ref;
    EXCEPTION WHEN OTHERS THEN
        v_ref_ok := false;  -- its own row says why (status_failed)
    END;

    -- Two commands on every node: the version (which cannot fail where the
    -- node answers) and the status (which fails where snowflake is missing
    -- or not preloaded).  Both name everything with its schema.  The status
    -- carries its whole row too: a node at an older version has fewer
    -- columns (no identity history before 1.5), and still answers.
    v_version_cmd := 'SELECT COALESCE((SELECT e.extversion FROM pg_catalog.pg_extension e '
                     'WHERE e.extname OPERATOR(pg_catalog.=) ''snowflake''), '''')';
    v_status_cmd := format('SELECT pg_catalog.json_build_object(''datacenter_id'', s.datacenter_id, '
                           '''worker_id'', s.worker_id, '
                           '''epoch_ms'', (extract(epoch FROM s.epoch) OPERATOR(pg_catalog.*) 1000)::bigint, '
                           '''datacenter_bits'', s.datacenter_bits, ''worker_bits'', s.worker_bits, '
                           '''sequence_bits'', s.sequence_bits, '
                           '''row'', pg_catalog.to_json(s))::text FROM %s.snowflake_status s',
                           v_schema);

    FOR n IN EXECUTE $q$
        WITH v AS (SELECT * FROM pg_catalog.run_command_on_all_nodes($1)),
             s AS (SELECT * FROM pg_catalog.run_command_on_all_nodes($2)),
             nodes AS (
                SELECT coalesce(d.nodename, current_setting('citus.local_hostname')) AS node_name,
                       coalesce(d.nodeport, current_setting('port')::integer) AS node_port,
                       coalesce(d.groupid, 0) AS group_id,
                       v.success AS reached,
                       CASE WHEN v.success THEN nullif(v.result, '') END AS version,
                       CASE WHEN NOT v.success THEN v.result END AS unreachable_error,
                       s.success AS status_ok,
                       CASE WHEN s.success THEN s.result::json END AS status,
                       CASE WHEN NOT s.success THEN s.result END AS status_error
                FROM v JOIN s USING (nodeid)
                LEFT JOIN pg_catalog.pg_dist_node d ON d.nodeid = v.nodeid),
             parsed AS (
                SELECT nodes.*,
                       (status->>'datacenter_id')::integer AS dc,
                       (status->>'worker_id')::integer AS worker,
                       (status->>'epoch_ms')::bigint AS epoch_ms,
                       (status->>'datacenter_bits')::integer AS dc_bits,
                       (status->>'worker_bits')::integer AS w_bits,
                       (status->>'sequence_bits')::integer AS s_bits,
                       (status->'row'->>'identity_since')::timestamptz AS since,
                       status->'row'->>'retired_identity' AS retired,
                       (status->'row'->>'retired_until')::timestamptz AS retired_until,
                       (status->'row')::jsonb ? 'identity_since' AS has_history
                FROM nodes)
        SELECT p.*,
               (SELECT string_agg(format('%s:%s', o.node_name, o.node_port), ', '
                                  ORDER BY o.node_name, o.node_port)
                FROM parsed o
                WHERE o.worker IS NOT NULL AND o.dc = p.dc AND o.worker = p.worker
                  AND (o.node_name, o.node_port) IS DISTINCT FROM (p.node_name, p.node_port)) AS same_identity,
               -- Another node retired this node's identity: its ids under it
               -- carry times up to that node's retired_until, so this node's
               -- must all come later (plus the one-second clock-skew margin).
               (SELECT string_agg(format('%s:%s retired it until %s', o.node_name, o.node_port,
                                         o.retired_until), '; '
                                  ORDER BY o.node_name, o.node_port)
                FROM parsed o
                WHERE p.worker IS NOT NULL AND p.has_history
                  AND o.retired = format('%s/%s', p.dc, p.worker)
                  AND (o.node_name, o.node_port) IS DISTINCT FROM (p.node_name, p.node_port)
                  AND (p.since IS NULL OR p.since <= o.retired_until + interval '1 second')) AS retired_elsewhere
        FROM parsed p
        ORDER BY p.group_id, p.node_name, p.node_port
    $q$ USING v_version_cmd, v_status_cmd
    LOOP
        node_name := n.node_name;
        node_port := n.node_port;
        group_id := n.group_id;
        datacenter_id := CASE WHEN n.worker IS NOT NULL THEN n.dc END;
        worker_id := n.worker;
        epoch := to_timestamp(n.epoch_ms / 1000.0);
        layout := CASE WHEN n.dc_bits IS NOT NULL
                       THEN format('%s/%s/%s', n.dc_bits, n.w_bits, n.s_bits) END;
        extension_version := n.version;
        problem := NULL;
        detail := NULL;
        IF NOT n.reached THEN
            problem := 'unreachable';
            detail := n.unreachable_error;
            RETURN NEXT;
            CONTINUE;
        END IF;
        IF n.version IS NULL THEN
            problem := 'extension_missing';
            detail := 'The snowflake extension is not installed in this database on the node.';
            RETURN NEXT;
            CONTINUE;
        END IF;
        IF n.version IS DISTINCT FROM v_version THEN
            problem := 'version_mismatch';
            detail := format('The node has snowflake %s, the coordinator %s.', n.version, v_version);
            RETURN NEXT;
        END IF;
        IF NOT n.status_ok THEN
            problem := 'status_failed';
            detail := n.status_error;
            RETURN NEXT;
            CONTINUE;
        END IF;
        IF n.worker IS NULL THEN
            problem := 'identity_missing';
            detail := 'The node has no (datacenter_id, worker_id): snowflake_nextval() fails there, '
                      'including for INSERT ... SELECT and ALTER TABLE that Citus runs on it.';
            RETURN NEXT;
        ELSIF n.same_identity IS NOT NULL THEN
            problem := 'identity_duplicate';
            detail := format('datacenter_id %s, worker_id %s is also the identity of %s.',
                             n.dc, n.worker, n.same_identity);
            RETURN NEXT;
        ELSIF n.retired_elsewhere IS NOT NULL THEN
            problem := 'identity_recently_retired';
            detail := format('datacenter_id %s, worker_id %s: %s; this node''s ids under it %s, '
                             'not after that time plus the one-second clock-skew margin, so they '
                             'could equal that node''s.',
                             n.dc, n.worker, n.retired_elsewhere,
                             CASE WHEN n.since IS NULL
                                  THEN 'start at an unknown time (identity_since is null)'
                                  ELSE format('start at %s', n.since) END);
            RETURN NEXT;
        END IF;
        IF v_ref_ok AND (n.dc_bits, n.w_bits, n.s_bits)
                        IS DISTINCT FROM (v_ref.datacenter_bits, v_ref.worker_bits, v_ref.sequence_bits) THEN
            problem := 'layout_mismatch';
            detail := format('The node has layout %s (datacenter/worker/sequence bits), the coordinator %s/%s/%s.',
                             layout, v_ref.datacenter_bits, v_ref.worker_bits, v_ref.sequence_bits);
            RETURN NEXT;
        END IF;
        IF v_ref_ok AND n.epoch_ms IS DISTINCT FROM v_ref.epoch_ms THEN
            problem := 'epoch_mismatch';
            detail := format('The node has epoch %s ms, the coordinator %s ms.', n.epoch_ms, v_ref.epoch_ms);
            RETURN NEXT;
        END IF;
        IF problem IS NULL THEN
            RETURN NEXT;
        END IF;
    END LOOP;
END
$check$;
COMMENT ON FUNCTION @extschema@.snowflake_cluster_check() IS
    'every node of the Citus cluster: its snowflake identity, layout, epoch and version, with the problems found (run on the coordinator)';
-- ===========================================================================
-- end of snowflake_cluster_check(): a node using an identity another node retired
-- ===========================================================================
