-- Records that no other node may use a pair before `until`: the ids of node
-- `node_key` (whose secret has SHA-256 `secret_hash`) under it carry times
-- up to then.  A pair retired twice keeps the later time, and the node that
-- reported it; only that node may claim the pair back before then.
-- `until` counts at most 10 minutes from now: a node issues ids under a
-- registry's pair only up to the end of its confirmation (at most 597 s
-- after it asked), so no honest report runs further, and a report that does
-- (a registrar login's, '9999-01-01') holds the pair back no longer than a
-- silent holder keeps it (snowflake_registry_reserve).
CREATE FUNCTION @extschema@.snowflake_registry_hold_back(
    datacenter_id integer, worker_id integer, until timestamptz, node_key text, secret_hash bytea)
RETURNS void
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $$
    INSERT INTO @extschema@.snowflake_registry_retired AS t
        (datacenter_id, worker_id, retired_until, node_key, retired_at, secret_hash)
    VALUES (datacenter_id, worker_id, least(until, now() + interval '10 minutes'), node_key, now(),
            secret_hash)
    ON CONFLICT ON CONSTRAINT snowflake_registry_retired_pkey DO UPDATE
    SET node_key = CASE WHEN excluded.retired_until >= t.retired_until
                        THEN excluded.node_key ELSE t.node_key END,
        secret_hash = CASE WHEN excluded.retired_until >= t.retired_until
                           THEN excluded.secret_hash ELSE t.secret_hash END,
        retired_until = greatest(t.retired_until, excluded.retired_until),
        retired_at = now()
$$;
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_hold_back(integer, integer, timestamptz, text, bytea) FROM PUBLIC;
