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
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_reserve(integer, integer, text) FROM PUBLIC;
