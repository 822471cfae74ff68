-- ===========================================================================
-- Configuring the node
-- ===========================================================================

-- The node's identity (this database's), layout and clock policy.  Only the
-- owner of the snowflake_sql objects may call it; the values are kept in
-- snowflake_sql_config, where pg_dump keeps them, and no setting of a session
-- changes them.  A new identity applies from the next millisecond's ids on,
-- once the transaction commits.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_configure(
    worker_id integer,
    datacenter_id integer DEFAULT 0,
    epoch_ms bigint DEFAULT 1288834974657,
    datacenter_bits integer DEFAULT 5,
    worker_bits integer DEFAULT 5,
    sequence_bits integer DEFAULT 12,
    clock_backward_policy text DEFAULT 'borrow',
    max_clock_backward_ms integer DEFAULT 10000)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    owner_name name;
    arg text;
BEGIN
    SELECT c.relowner::regrole::name INTO owner_name
    FROM pg_catalog.pg_class c WHERE c.oid = '@extschema@.snowflake_sql_config'::regclass;
    IF NOT pg_catalog.pg_has_role(CURRENT_USER, owner_name, 'USAGE') THEN
        RAISE EXCEPTION 'only the owner of the snowflake_sql objects (%) can configure the node',
                        owner_name
            USING ERRCODE = '42501';
    END IF;
    arg := CASE WHEN worker_id IS NULL THEN 'worker_id'
                WHEN datacenter_id IS NULL THEN 'datacenter_id'
                WHEN epoch_ms IS NULL THEN 'epoch_ms'
                WHEN datacenter_bits IS NULL THEN 'datacenter_bits'
                WHEN worker_bits IS NULL THEN 'worker_bits'
                WHEN sequence_bits IS NULL THEN 'sequence_bits'
                WHEN clock_backward_policy IS NULL THEN 'clock_backward_policy'
                WHEN max_clock_backward_ms IS NULL THEN 'max_clock_backward_ms' END;
    IF arg IS NOT NULL THEN
        RAISE EXCEPTION 'snowflake_configure: % must not be NULL', arg USING ERRCODE = '22004';
    END IF;
    -- Checked (and baked) by the table's triggers.
    UPDATE @extschema@.snowflake_sql_config c
    SET epoch_ms = snowflake_configure.epoch_ms,
        datacenter_bits = snowflake_configure.datacenter_bits,
        worker_bits = snowflake_configure.worker_bits,
        sequence_bits = snowflake_configure.sequence_bits,
        datacenter_id = snowflake_configure.datacenter_id,
        worker_id = snowflake_configure.worker_id,
        clock_backward_policy = pg_catalog.lower(snowflake_configure.clock_backward_policy),
        max_clock_backward_ms = snowflake_configure.max_clock_backward_ms,
        configured_at = pg_catalog.now(),
        configured_by = CURRENT_USER;
    IF NOT FOUND THEN
        INSERT INTO @extschema@.snowflake_sql_config (epoch_ms, datacenter_bits, worker_bits, sequence_bits,
                                          datacenter_id, worker_id, clock_backward_policy,
                                          max_clock_backward_ms)
        VALUES (epoch_ms, datacenter_bits, worker_bits, sequence_bits, datacenter_id, worker_id,
                pg_catalog.lower(clock_backward_policy), max_clock_backward_ms);
    END IF;
END
$fn$;
REVOKE ALL ON FUNCTION @extschema@.snowflake_configure(integer, integer, bigint, integer, integer, integer, text, integer)
    FROM PUBLIC;
COMMENT ON FUNCTION @extschema@.snowflake_configure(integer, integer, bigint, integer, integer, integer, text, integer) IS
    'set this node''s identity, layout and clock policy (owner only)';

