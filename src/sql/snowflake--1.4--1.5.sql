-- snowflake 1.4 -> 1.5.
\echo Use "ALTER EXTENSION snowflake UPDATE TO '1.5'" to load this file. \quit

-- ===========================================================================
-- snowflake_status: identity_since, retired_identity, retired_until
--
-- What the node knows of the identities it has issued ids under:
--   identity_since    every id this node has issued, or will issue, under its
--                     current (datacenter_id, worker_id) carries a time at or
--                     after it; null where the node cannot know (a state
--                     file from before 1.5 that already had ids, an identity
--                     it may have used before what it remembers);
--   retired_identity  'datacenter_id/worker_id' of the identity it had before
--                     its last identity change, or null;
--   retired_until     the latest time any id under that identity carries
--                     (ids borrowed ahead of the clock included): another
--                     node may take that identity once its own clock is past
--                     this time.
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
    OUT identity_source text,
    OUT identity_since timestamptz,
    OUT retired_identity text,
    OUT retired_until timestamptz)
RETURNS record
AS 'MODULE_PATHNAME', 'snowflake_status'
LANGUAGE C VOLATILE PARALLEL SAFE;

CREATE VIEW @extschema@.snowflake_status AS SELECT * FROM @extschema@.snowflake_status();
COMMENT ON VIEW @extschema@.snowflake_status IS 'the generator of this node: layout, identity, counters, durable mark';
-- ===========================================================================
-- end of snowflake_status: identity_since, retired_identity, retired_until
-- ===========================================================================
