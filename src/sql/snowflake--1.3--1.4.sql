-- snowflake 1.3 -> 1.4.
\echo Use "ALTER EXTENSION snowflake UPDATE TO '1.4'" to load this file. \quit

-- ===========================================================================
-- snowflake_status: identity_source
--
-- Where the node identity in use comes from: 'configured' (the settings),
-- 'kept' (a configured value kept after its setting was removed from the
-- configuration: a reload never changes the identity by omission),
-- 'registry' (a claim from snowflake.registry) or 'none'.
-- ===========================================================================
DROP VIEW @extschema@.snowflake_status;
DROP FUNCTION @extschema@.snowflake_status();

CREATE FUNCTION @extschema@.snowflake_status(
    OUT epoch timestamptz,
    OUT timestamp_bits integer,
    OUT datacenter_bits integer,
    OUT worker_bits integer,
    OUT sequence_bits integer,
    OUT datacenter_id integer,
    OUT worker_id integer,
    OUT clock_backward_policy text,
    OUT max_clock_backward_ms integer,
    OUT random_sequence_start boolean,
    OUT last_id bigint,
    OUT ids_issued bigint,
    OUT sequence_exhaustions bigint,
    OUT clock_backward_events bigint,
    OUT max_clock_backward_step_ms bigint,
    OUT borrowed_ahead_ms bigint,
    OUT durable_mark timestamptz,
    OUT durable_writes bigint,
    OUT lifetime_end timestamptz,
    OUT identity_source text)
RETURNS record
AS 'MODULE_PATHNAME', 'snowflake_status'
LANGUAGE C VOLATILE PARALLEL SAFE;

CREATE VIEW @extschema@.snowflake_status AS SELECT * FROM @extschema@.snowflake_status();
COMMENT ON VIEW @extschema@.snowflake_status IS 'the generator of this node: layout, identity, counters, durable mark';
