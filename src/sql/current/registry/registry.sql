-- On a registry server: one row per pair in use.  The primary key makes a
-- pair unique, the unique node_key makes a node hold at most one pair.
-- Claims are made by snowflake_registry_claim/renew (called by the nodes'
-- "snowflake registrar" background worker), configured nodes reserve their
-- pairs (snowflake_registry_reserve), and pairs are released by hand.
CREATE TABLE @extschema@.snowflake_registry (
    datacenter_id integer NOT NULL,
    worker_id integer NOT NULL,
    node_key text NOT NULL UNIQUE,
    claimed_at timestamptz NOT NULL DEFAULT now(),
    datacenter_bits integer CHECK (datacenter_bits BETWEEN 0 AND 27),
    worker_bits integer CHECK (worker_bits BETWEEN 0 AND 27),
    last_seen timestamptz NOT NULL DEFAULT now(),
    kind text NOT NULL DEFAULT 'claim'
        CHECK (kind IN ('claim', 'configured', 'reserved')),
    timeline integer,
    note text,
    PRIMARY KEY (datacenter_id, worker_id),
    secret_hash bytea,
    confirmed_until timestamptz
);
COMMENT ON TABLE @extschema@.snowflake_registry IS 'worker ids claimed by snowflake nodes (node_key: system identifier:host:port)';
COMMENT ON COLUMN @extschema@.snowflake_registry.datacenter_bits IS
    'snowflake.datacenter_bits of the claim (null: claimed before 1.3, not renewed since)';
COMMENT ON COLUMN @extschema@.snowflake_registry.worker_bits IS
    'snowflake.worker_bits of the claim (null: claimed before 1.3, not renewed since)';
COMMENT ON COLUMN @extschema@.snowflake_registry.last_seen IS
    'when the node last claimed or renewed (every minute while it runs)';
COMMENT ON COLUMN @extschema@.snowflake_registry.kind IS
    'claim: handed out to a node by the registry; configured: reserved by a node configured with it; reserved: set aside by hand';
COMMENT ON COLUMN @extschema@.snowflake_registry.timeline IS
    'configured: the WAL timeline of the node when it last reserved (a promoted standby has a later one than its old primary)';
COMMENT ON COLUMN @extschema@.snowflake_registry.note IS
    'reserved: what the pair is set aside for';
-- Claims are data, not schema: pg_dump keeps them.
SELECT pg_catalog.pg_extension_config_dump('@extschema@.snowflake_registry', '');
REVOKE ALL ON TABLE @extschema@.snowflake_registry FROM PUBLIC;
