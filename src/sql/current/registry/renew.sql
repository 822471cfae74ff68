-- Claims: a pair another node retired is not handed out before its
-- retired_until plus the margin, and the node's own row is found whatever
-- its kind (a node moved from a configured identity to the registry keeps
-- its pair).  node_secret proves the row is the node's (secret.sql).
CREATE FUNCTION @extschema@.snowflake_registry_renew(
    node_key text,
    datacenter_bits integer,
    worker_bits integer,
    held_datacenter_id integer,
    held_worker_id integer,
    node_secret text,
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
    fn_secret text := snowflake_registry_renew.node_secret;
    fn_hash bytea := @extschema@.snowflake_registry_secret_hash(snowflake_registry_renew.node_secret);
    own record;
    d integer;
    w integer;
BEGIN
    IF fn_key IS NULL OR fn_key = '' THEN
        RAISE EXCEPTION 'snowflake registry: node_key must not be empty'
            USING ERRCODE = '22023';
    END IF;
    IF (held_datacenter_id IS NULL) <> (held_worker_id IS NULL) THEN
        RAISE EXCEPTION 'snowflake registry: held_datacenter_id and held_worker_id must both be given or both be null'
            USING ERRCODE = '22023';
    END IF;
    -- One claimer at a time (the rules below read the whole table), one
    -- layout per registry.
    PERFORM @extschema@.snowflake_registry_lock(fn_dc_bits, fn_w_bits);

    -- The node's claim: the same pair at every restart and renewal.
    SELECT r.datacenter_id, r.worker_id, r.secret_hash INTO own
    FROM @extschema@.snowflake_registry r WHERE r.node_key = fn_key;
    IF FOUND THEN
        PERFORM @extschema@.snowflake_registry_check_secret(fn_key, own.datacenter_id,
                                                              own.worker_id, own.secret_hash, fn_secret);
        UPDATE @extschema@.snowflake_registry r
        SET last_seen = now(), datacenter_bits = fn_dc_bits, worker_bits = fn_w_bits,
            kind = 'claim', timeline = NULL, secret_hash = coalesce(r.secret_hash, fn_hash)
        WHERE r.node_key = fn_key
        RETURNING r.datacenter_id, r.worker_id INTO d, w;
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
                         AND NOT (t.node_key = fn_key
                                  AND @extschema@.snowflake_registry_secret_ok(t.secret_hash, fn_secret))
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
                            AND NOT (t.node_key = fn_key
                                     AND @extschema@.snowflake_registry_secret_ok(t.secret_hash, fn_secret))
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
        (datacenter_id, worker_id, node_key, datacenter_bits, worker_bits, claimed_at, last_seen,
         secret_hash)
    VALUES (d, w, fn_key, fn_dc_bits, fn_w_bits, now(), now(), fn_hash);
    datacenter_id := d;
    worker_id := w;
END
$$;
COMMENT ON FUNCTION @extschema@.snowflake_registry_renew(text, integer, integer, integer, integer, text) IS
    'renew a node''s claim; if the registry lost it, record the held pair again when free; run on the registry server';
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_renew(text, integer, integer, integer, integer, text) FROM PUBLIC;

-- The 1.5 signature, for nodes of 1.5 while the registry is newer: no
-- secret, so it acts only on rows recorded without one.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_registry_renew(
    node_key text,
    datacenter_bits integer,
    worker_bits integer,
    held_datacenter_id integer,
    held_worker_id integer,
    OUT datacenter_id integer,
    OUT worker_id integer)
RETURNS record
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT r.datacenter_id, r.worker_id
    FROM @extschema@.snowflake_registry_renew(node_key, datacenter_bits, worker_bits,
                                              held_datacenter_id, held_worker_id, NULL) r
$$;
COMMENT ON FUNCTION @extschema@.snowflake_registry_renew(text, integer, integer, integer, integer) IS
    'renew a node''s claim without a node secret (nodes of 1.5): only rows recorded without one; run on the registry server';
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_renew(text, integer, integer, integer, integer) FROM PUBLIC;
