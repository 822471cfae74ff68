-- Gives a pair set aside by hand to a configured node: the registry's
-- owner's act (caller's rights; the registrar login has no rights on the
-- table), the only way such a pair reaches a node that reserves it.  The
-- row becomes the node's reservation, without a secret until the node's
-- first reservation records its own (secret.sql).
CREATE FUNCTION @extschema@.snowflake_registry_assign(
    datacenter_id integer,
    worker_id integer,
    node_key text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn_dc integer := snowflake_registry_assign.datacenter_id;
    fn_w integer := snowflake_registry_assign.worker_id;
    fn_key text := snowflake_registry_assign.node_key;
    h record;
    other record;
BEGIN
    IF fn_key IS NULL OR fn_key = '' OR fn_key LIKE 'reserved:%' THEN
        RAISE EXCEPTION 'snowflake registry: node_key must be a node''s key'
            USING ERRCODE = '22023';
    END IF;
    LOCK TABLE @extschema@.snowflake_registry IN SHARE ROW EXCLUSIVE MODE;
    SELECT r.* INTO h FROM @extschema@.snowflake_registry r
    WHERE r.datacenter_id = fn_dc AND r.worker_id = fn_w;
    IF NOT FOUND OR h.kind <> 'reserved' THEN
        RAISE EXCEPTION 'datacenter_id % worker_id % is not set aside by hand in the snowflake registry',
                        fn_dc, fn_w
            USING ERRCODE = '55000',
                  DETAIL = CASE WHEN FOUND THEN format('Node %s holds it (%s).', h.node_key, h.kind)
                                ELSE 'No row holds it.' END,
                  HINT = 'Set the pair aside first: snowflake_registry_reserve(datacenter_id, worker_id, note).';
    END IF;
    SELECT r.datacenter_id, r.worker_id INTO other FROM @extschema@.snowflake_registry r
    WHERE r.node_key = fn_key;
    IF FOUND THEN
        RAISE EXCEPTION 'node % holds datacenter_id % worker_id % in the snowflake registry',
                        fn_key, other.datacenter_id, other.worker_id
            USING ERRCODE = '23505',
                  HINT = 'A node holds one pair: release its row first (snowflake_registry_release()).';
    END IF;
    UPDATE @extschema@.snowflake_registry r
    SET node_key = fn_key, kind = 'configured', claimed_at = now(), last_seen = now(),
        timeline = NULL, secret_hash = NULL, confirmed_until = NULL
    WHERE r.datacenter_id = fn_dc AND r.worker_id = fn_w;
END
$$;
COMMENT ON FUNCTION @extschema@.snowflake_registry_assign(integer, integer, text) IS
    'give a pair set aside by hand to the configured node node_key (the registry owner''s act); run on the registry server';
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_assign(integer, integer, text) FROM PUBLIC;
