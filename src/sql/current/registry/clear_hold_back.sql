-- Clears a hold-back of a pair: the registry's owner's act (caller's rights;
-- the registrar login has no rights on the table), for a retired_until known
-- to be mistaken.  The pair is recorded as retired until -infinity, which
-- snowflake_registry_reserve reports like any retired_until: a configured
-- node that holds its ids back under the pair because the registry told it
-- so drops that time at its next reservation (the registrar reserves at
-- start, after a reload that changes the pair, and every minute), and its
-- snowflake.state with it.  A later report of a real retired_until replaces
-- the mark.  Returns the retired_until cleared, or null if there was none.
-- Only for a time no id stands behind: ids of the node that reported it,
-- dated up to then, can equal ids the next holder issues.
CREATE FUNCTION @extschema@.snowflake_registry_clear_hold_back(
    datacenter_id integer,
    worker_id integer)
RETURNS timestamptz
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn_dc integer := snowflake_registry_clear_hold_back.datacenter_id;
    fn_w integer := snowflake_registry_clear_hold_back.worker_id;
    was timestamptz;
BEGIN
    IF fn_dc IS NULL OR fn_w IS NULL THEN
        RAISE EXCEPTION 'snowflake registry: datacenter_id and worker_id must not be null'
            USING ERRCODE = '22023';
    END IF;
    LOCK TABLE @extschema@.snowflake_registry IN SHARE ROW EXCLUSIVE MODE;
    SELECT t.retired_until INTO was FROM @extschema@.snowflake_registry_retired t
    WHERE t.datacenter_id = fn_dc AND t.worker_id = fn_w;
    INSERT INTO @extschema@.snowflake_registry_retired AS t
        (datacenter_id, worker_id, retired_until, node_key, retired_at, secret_hash)
    VALUES (fn_dc, fn_w, '-infinity', '(cleared by the registry''s owner)', now(), NULL)
    ON CONFLICT ON CONSTRAINT snowflake_registry_retired_pkey DO UPDATE
    SET retired_until = excluded.retired_until, node_key = excluded.node_key,
        retired_at = excluded.retired_at, secret_hash = NULL;
    RETURN CASE WHEN isfinite(was) THEN was END;
END
$$;
COMMENT ON FUNCTION @extschema@.snowflake_registry_clear_hold_back(integer, integer) IS
    'clear a mistaken hold-back of a pair: configured nodes holding ids back under it go on at their next reservation; run on the registry server as its owner';
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_clear_hold_back(integer, integer) FROM PUBLIC;
