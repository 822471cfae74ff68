-- A first claim: snowflake_registry_renew with no pair held.
CREATE FUNCTION @extschema@.snowflake_registry_claim(
    node_key text,
    datacenter_bits integer,
    worker_bits integer,
    node_secret text,
    OUT datacenter_id integer,
    OUT worker_id integer)
RETURNS record
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT r.datacenter_id, r.worker_id
    FROM @extschema@.snowflake_registry_renew(node_key, datacenter_bits, worker_bits, NULL, NULL,
                                              node_secret) r
$$;
COMMENT ON FUNCTION @extschema@.snowflake_registry_claim(text, integer, integer, text) IS
    'claim (or get back) a (datacenter_id, worker_id) for a node; run on the registry server';
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_claim(text, integer, integer, text) FROM PUBLIC;

-- The signature of 1.3 to 1.5, without a node secret.
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
    FROM @extschema@.snowflake_registry_renew(node_key, datacenter_bits, worker_bits, NULL, NULL, NULL) r
$$;
COMMENT ON FUNCTION @extschema@.snowflake_registry_claim(text, integer, integer) IS
    'claim a (datacenter_id, worker_id) without a node secret (nodes of 1.5): only rows recorded without one; run on the registry server';
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_claim(text, integer, integer) FROM PUBLIC;
