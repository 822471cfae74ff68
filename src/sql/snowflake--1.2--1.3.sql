-- snowflake 1.2 -> 1.3.
\echo Use "ALTER EXTENSION snowflake UPDATE TO '1.3'" to load this file. \quit

-- ---- registry: schema-safe functions (issue 11) ---------------------------------------
--
-- From 1.3 the extension is not relocatable (snowflake.control): it can be
-- created in any schema (CREATE EXTENSION snowflake SCHEMA ids), and its
-- functions name their own objects @extschema@.name and run with
-- search_path = pg_catalog, pg_temp, so neither the caller's search_path nor
-- objects planted in another schema (public) change what they do.  This
-- replaces the 1.2 functions, whose SET search_path FROM CURRENT kept the
-- schema they were created in (and broke after ALTER EXTENSION ... SET
-- SCHEMA; updating such an install repairs it).
--
-- The registry's rules from 1.3:
--   - a claim records the widths it was made under; a claim under other
--     widths is refused (the same pair is other node bits under other widths);
--   - nodes renew their claim every minute (last_seen), so a claim whose node
--     is gone shows as stale; snowflake_registry_release() refuses to release
--     a claim renewed in the last 10 minutes;
--   - snowflake_registry_renew() lets a node that holds a pair (recorded in
--     its snowflake.state) record it again when the registry lost its claim;
--   - claim and renew are SECURITY DEFINER: a registrar role needs EXECUTE on
--     them and no privilege on the table.

ALTER TABLE @extschema@.snowflake_registry
    ADD COLUMN datacenter_bits integer CHECK (datacenter_bits BETWEEN 0 AND 27),
    ADD COLUMN worker_bits integer CHECK (worker_bits BETWEEN 0 AND 27),
    ADD COLUMN last_seen timestamptz;
-- Claims made before 1.3: widths unknown (recorded at their next renewal),
-- last seen when they were made.
UPDATE @extschema@.snowflake_registry SET last_seen = claimed_at;
ALTER TABLE @extschema@.snowflake_registry
    ALTER COLUMN last_seen SET DEFAULT now(),
    ALTER COLUMN last_seen SET NOT NULL;
COMMENT ON COLUMN @extschema@.snowflake_registry.datacenter_bits IS
    'snowflake.datacenter_bits of the claim (null: claimed before 1.3, not renewed since)';
COMMENT ON COLUMN @extschema@.snowflake_registry.worker_bits IS
    'snowflake.worker_bits of the claim (null: claimed before 1.3, not renewed since)';
COMMENT ON COLUMN @extschema@.snowflake_registry.last_seen IS
    'when the node last claimed or renewed (every minute while it runs)';

CREATE FUNCTION @extschema@.snowflake_registry_renew(
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
    SET last_seen = now(), datacenter_bits = fn_dc_bits, worker_bits = fn_w_bits
    WHERE r.node_key = fn_key
    RETURNING r.datacenter_id, r.worker_id INTO d, w;
    IF FOUND THEN
        datacenter_id := d;
        worker_id := w;
        RETURN;
    END IF;

    -- No claim (a first start, a restored registry, a claim released by
    -- hand): the pair the node holds if it is still free, else the lowest
    -- free pair.
    IF held_datacenter_id BETWEEN 0 AND (1 << fn_dc_bits) - 1
       AND held_worker_id BETWEEN 0 AND (1 << fn_w_bits) - 1
       AND NOT EXISTS (SELECT 1 FROM @extschema@.snowflake_registry r
                       WHERE r.datacenter_id = held_datacenter_id
                         AND r.worker_id = held_worker_id) THEN
        d := held_datacenter_id;
        w := held_worker_id;
    ELSE
        SELECT dd, ww INTO d, w
        FROM generate_series(0, (1 << fn_dc_bits) - 1) dd,
             generate_series(0, (1 << fn_w_bits) - 1) ww
        WHERE NOT EXISTS (SELECT 1 FROM @extschema@.snowflake_registry r
                          WHERE r.datacenter_id = dd AND r.worker_id = ww)
        ORDER BY dd, ww
        LIMIT 1;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'no free (datacenter_id, worker_id) left in the snowflake registry'
                USING ERRCODE = '53400',
                      DETAIL = format('All %s pairs of a %s/%s-bit layout are claimed.',
                                      (1 << fn_dc_bits) * (1 << fn_w_bits), fn_dc_bits, fn_w_bits),
                      HINT = 'Release claims of retired nodes with snowflake_registry_release().';
        END IF;
    END IF;
    INSERT INTO @extschema@.snowflake_registry
        (datacenter_id, worker_id, node_key, datacenter_bits, worker_bits, claimed_at, last_seen)
    VALUES (d, w, fn_key, fn_dc_bits, fn_w_bits, now(), now());
    datacenter_id := d;
    worker_id := w;
END
$$;
COMMENT ON FUNCTION @extschema@.snowflake_registry_renew(text, integer, integer, integer, integer) IS
    'renew a node''s claim; if the registry lost it, record the held pair again when free; run on the registry server';

CREATE OR REPLACE FUNCTION @extschema@.snowflake_registry_claim(
    node_key text,
    datacenter_bits integer DEFAULT 5,
    worker_bits integer DEFAULT 5,
    OUT datacenter_id integer,
    OUT worker_id integer)
RETURNS record
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT r.datacenter_id, r.worker_id
    FROM @extschema@.snowflake_registry_renew(node_key, datacenter_bits, worker_bits, NULL, NULL) r
$$;
COMMENT ON FUNCTION @extschema@.snowflake_registry_claim(text, integer, integer) IS
    'claim (or get back) a (datacenter_id, worker_id) for a node; run on the registry server';

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
    WHERE r.node_key = fn_key AND r.last_seen <= now() - interval '10 minutes';
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
                     'README); its claim can be released once it has not been renewed for 10 '
                     'minutes.';
END
$$;
COMMENT ON FUNCTION @extschema@.snowflake_registry_release(text) IS
    'release the claim of a retired node (refused while it was renewed in the last 10 minutes)';

REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_renew(text, integer, integer, integer, integer) FROM PUBLIC;
-- ---- end of registry: schema-safe functions (issue 11) --------------------------------
