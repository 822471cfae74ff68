-- A node proves that a registry row is its own with its secret (the file
-- snowflake.node_secret in its data directory, which a promoted standby
-- inherits from its primary's base backup).  The registry keeps only the
-- SHA-256 of it, on the node's claim or reservation and on the pairs it
-- retired.  A row without one (made before 1.6, or through the 1.5
-- signatures, which pass no secret) takes the first secret that comes.
COMMENT ON COLUMN @extschema@.snowflake_registry.secret_hash IS
    'SHA-256 of the node''s snowflake.node_secret: only that node (or a standby promoted from it) renews, retires or takes over the row (null: made before 1.6)';
COMMENT ON COLUMN @extschema@.snowflake_registry_retired.secret_hash IS
    'SHA-256 of the node secret of node_key: only that node claims the pair again before retired_until (null: retired before 1.6)';

-- The SHA-256 of a node secret (null for none); a short one is refused.
CREATE FUNCTION @extschema@.snowflake_registry_secret_hash(node_secret text)
RETURNS bytea
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF node_secret IS NULL THEN
        RETURN NULL;
    END IF;
    IF length(node_secret) < 32 THEN
        RAISE EXCEPTION 'snowflake registry: node_secret must be at least 32 characters long'
            USING ERRCODE = '22023';
    END IF;
    RETURN sha256(convert_to(node_secret, 'UTF8'));
END
$$;
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_secret_hash(text) FROM PUBLIC;

-- Whether a row recorded with secret_hash may be acted on with node_secret.
CREATE FUNCTION @extschema@.snowflake_registry_secret_ok(secret_hash bytea, node_secret text)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT secret_hash IS NULL
        OR (node_secret IS NOT NULL
            AND secret_hash = sha256(convert_to(node_secret, 'UTF8')))
$$;
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_secret_ok(bytea, text) FROM PUBLIC;

-- Refuses a call in a node's name with a secret other than the one its row
-- was recorded with.
CREATE FUNCTION @extschema@.snowflake_registry_check_secret(
    node_key text, datacenter_id integer, worker_id integer, secret_hash bytea, node_secret text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT @extschema@.snowflake_registry_secret_ok(secret_hash, node_secret) THEN
        RAISE EXCEPTION 'snowflake registry: the row of node % (datacenter_id % worker_id %) was recorded with another node secret',
                        node_key, datacenter_id, worker_id
            USING ERRCODE = '42501',
                  DETAIL = CASE WHEN node_secret IS NULL
                                THEN 'This call passes no node secret (a snowflake 1.5 signature); the row was made by a node of 1.6 or later.'
                                ELSE 'The secret passed is not the one in the data directory of the node that made the row (its snowflake.node_secret file).' END,
                  HINT = 'Only the node that holds a pair, or a standby promoted from it, renews, retires or takes it over. If that node''s data directory was replaced, the registry''s owner removes the row once the old copy is stopped for good: snowflake_registry_release().';
    END IF;
END
$$;
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_check_secret(text, integer, integer, bytea, text) FROM PUBLIC;
