CREATE TABLE @extschema@.snowflake_registry_retired (
    datacenter_id integer NOT NULL,
    worker_id integer NOT NULL,
    retired_until timestamptz NOT NULL,
    node_key text NOT NULL,
    retired_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (datacenter_id, worker_id),
    secret_hash bytea
);
COMMENT ON TABLE @extschema@.snowflake_registry_retired IS
    'pairs nodes left: no id under the pair carries a time after retired_until (node_key: the node that left it)';
SELECT pg_catalog.pg_extension_config_dump('@extschema@.snowflake_registry_retired', '');
REVOKE ALL ON TABLE @extschema@.snowflake_registry_retired FROM PUBLIC;
