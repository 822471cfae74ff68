-- snowflake 1.1 -> 1.2: the worker-id registry.
\echo Use "ALTER EXTENSION snowflake UPDATE TO '1.2'" to load this file. \quit

-- On a registry server: one row per claimed (datacenter_id, worker_id).  The
-- primary key makes a pair unique, the unique node_key makes a node hold at
-- most one pair; claims are made by snowflake_registry_claim() (called by the
-- nodes' "snowflake registrar" background worker) and released by hand.
CREATE TABLE snowflake_registry (
    datacenter_id integer NOT NULL,
    worker_id integer NOT NULL,
    node_key text NOT NULL UNIQUE,
    claimed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (datacenter_id, worker_id)
);
COMMENT ON TABLE snowflake_registry IS 'worker ids claimed by snowflake nodes (node_key: system identifier:host:port)';
-- Claims are data, not schema: pg_dump keeps them.
SELECT pg_catalog.pg_extension_config_dump('snowflake_registry', '');

CREATE FUNCTION snowflake_registry_claim(
    node_key text,
    datacenter_bits integer DEFAULT 5,
    worker_bits integer DEFAULT 5,
    OUT datacenter_id integer,
    OUT worker_id integer)
RETURNS record
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
DECLARE
    d integer;
    w integer;
BEGIN
    IF node_key IS NULL OR node_key = '' THEN
        RAISE EXCEPTION 'snowflake_registry_claim: node_key must not be empty'
            USING ERRCODE = '22023';
    END IF;
    IF datacenter_bits NOT BETWEEN 0 AND 27 OR worker_bits NOT BETWEEN 0 AND 27 THEN
        RAISE EXCEPTION 'snowflake_registry_claim: widths must be between 0 and 27'
            USING ERRCODE = '22023';
    END IF;
    LOOP
        -- A node that claimed before (a restart) gets its claim back.
        SELECT r.datacenter_id, r.worker_id INTO d, w
        FROM snowflake_registry r WHERE r.node_key = snowflake_registry_claim.node_key;
        IF FOUND THEN
            datacenter_id := d;
            worker_id := w;
            RETURN;
        END IF;
        -- The lowest free pair.  Concurrent claimers race on the primary key
        -- and on node_key; ON CONFLICT DO NOTHING makes the loser look again.
        SELECT dd, ww INTO d, w
        FROM generate_series(0, (1 << datacenter_bits) - 1) dd,
             generate_series(0, (1 << worker_bits) - 1) ww
        WHERE NOT EXISTS (SELECT 1 FROM snowflake_registry r
                          WHERE r.datacenter_id = dd AND r.worker_id = ww)
        ORDER BY dd, ww
        LIMIT 1;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'no free (datacenter_id, worker_id) left in the snowflake registry'
                USING ERRCODE = '53400',
                      DETAIL = format('All %s pairs of a %s/%s-bit layout are claimed.',
                                      (1 << datacenter_bits) * (1 << worker_bits),
                                      datacenter_bits, worker_bits),
                      HINT = 'Release claims of retired nodes with snowflake_registry_release().';
        END IF;
        INSERT INTO snowflake_registry AS r (datacenter_id, worker_id, node_key)
        VALUES (d, w, snowflake_registry_claim.node_key)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            datacenter_id := d;
            worker_id := w;
            RETURN;
        END IF;
    END LOOP;
END
$$;
COMMENT ON FUNCTION snowflake_registry_claim(text, integer, integer) IS
    'claim (or get back) a (datacenter_id, worker_id) for a node; run on the registry server';

CREATE FUNCTION snowflake_registry_release(node_key text)
RETURNS boolean
LANGUAGE sql
SET search_path FROM CURRENT
AS $$
    WITH gone AS (
        DELETE FROM snowflake_registry r WHERE r.node_key = snowflake_registry_release.node_key
        RETURNING 1)
    SELECT count(*) > 0 FROM gone;
$$;
COMMENT ON FUNCTION snowflake_registry_release(text) IS
    'release the claim of a retired node; never release a node that may still issue ids';

REVOKE ALL ON TABLE snowflake_registry FROM PUBLIC;
REVOKE ALL ON FUNCTION snowflake_registry_claim(text, integer, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION snowflake_registry_release(text) FROM PUBLIC;
