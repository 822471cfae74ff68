-- ===========================================================================
-- Status
-- ===========================================================================

-- An earlier version's function and view have fewer columns: made again.
DO $older$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_proc p
               WHERE p.oid = pg_catalog.to_regprocedure('@extschema@.snowflake_status()')
                 AND NOT 'retired_until' = ANY (p.proargnames)) THEN
        DROP VIEW @extschema@.snowflake_status;
        DROP FUNCTION @extschema@.snowflake_status();
    END IF;
END
$older$;

-- The fields of the C extension's snowflake_status that this edition knows.
-- last_id is the highest id the node may have issued; durable_mark the
-- millisecond every id issued so far is at or before (the value the other
-- edition's snowflake_start_above takes, as snowflake_max_id(durable_mark)).
CREATE OR REPLACE FUNCTION @extschema@.snowflake_status(
    OUT epoch timestamptz,
    OUT timestamp_bits integer,
    OUT datacenter_bits integer,
    OUT worker_bits integer,
    OUT sequence_bits integer,
    OUT datacenter_id integer,
    OUT worker_id integer,
    OUT clock_backward_policy text,
    OUT max_clock_backward_ms integer,
    OUT last_id bigint,
    OUT borrowed_ahead_ms bigint,
    OUT durable_mark timestamptz,
    OUT lifetime_end timestamptz,
    OUT identity_source text,
    OUT identity_since timestamptz,
    OUT retired_identity text,
    OUT retired_until timestamptz)
RETURNS record
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SECURITY DEFINER   -- it reads the counter, which only the roles granted it may
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    s @extschema@.snowflake_sql_config := @extschema@.snowflake_sql_settings();
    shift integer := s.datacenter_bits + s.worker_bits + s.sequence_bits;
    -- (A standby cannot read unlogged sequences: no region there.)
    standby boolean := pg_catalog.pg_is_in_recovery();
    hi bigint := CASE WHEN standby THEN 0
                      ELSE coalesce(pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_bound'), 0) END;
    c bigint := CASE WHEN NOT standby
                     THEN pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_counter') END;
    mark bigint := @extschema@.snowflake_sql_mark_ms(s.mark_tag);
    g bigint;
    t bigint;
BEGIN
    epoch := @extschema@.snowflake_sql_ms_to_ts(s.epoch_ms);
    timestamp_bits := 63 - shift;
    datacenter_bits := s.datacenter_bits;
    worker_bits := s.worker_bits;
    sequence_bits := s.sequence_bits;
    datacenter_id := s.datacenter_id;
    worker_id := s.worker_id;
    clock_backward_policy := s.clock_backward_policy;
    max_clock_backward_ms := s.max_clock_backward_ms;
    lifetime_end := @extschema@.snowflake_sql_ms_to_ts_or_infinity(s.epoch_ms + (1::bigint << (63 - shift)) - 1);
    identity_source := CASE WHEN s.worker_id IS NULL THEN 'none' ELSE 'configured' END;
    identity_since := s.identity_since;
    retired_identity := s.retired_identity;
    retired_until := s.retired_until;
    IF hi > 0 THEN
        g := (hi - 1) >> shift;
        t := floor(EXTRACT(epoch FROM pg_catalog.clock_timestamp()) * 1000)::bigint
             - s.epoch_ms;
        last_id := least(c, hi - 1);
        borrowed_ahead_ms := greatest(g - t, 0);
        durable_mark := @extschema@.snowflake_sql_ms_to_ts(s.epoch_ms + g);
    ELSE
        borrowed_ahead_ms := 0;
        -- No region since a crash (or on a standby): every id issued is
        -- below the durable mark (unknown if another database wrote it).
        IF mark > 0 THEN
            durable_mark := @extschema@.snowflake_sql_ms_to_ts(s.epoch_ms + mark - 1);
        END IF;
    END IF;
END
$fn$;

CREATE OR REPLACE VIEW @extschema@.snowflake_status AS SELECT * FROM @extschema@.snowflake_status();
COMMENT ON VIEW @extschema@.snowflake_status IS 'the generator of this node (database): layout, identity, clock';
GRANT SELECT ON @extschema@.snowflake_status TO PUBLIC;
