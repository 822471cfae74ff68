-- snowflake 1.0: id generation, decoding and status.
\echo Use "CREATE EXTENSION snowflake" to load this file. \quit

CREATE FUNCTION snowflake_nextval()
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_nextval'
LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_nextval() IS 'next unique, increasing id of this node';

CREATE FUNCTION snowflake_generate(n integer)
RETURNS SETOF bigint
AS 'MODULE_PATHNAME', 'snowflake_generate'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION snowflake_generate(integer) IS 'n ids in increasing order, taken in blocks';

CREATE FUNCTION snowflake_parse(
    id bigint,
    OUT ts timestamptz,
    OUT unix_ms bigint,
    OUT datacenter_id integer,
    OUT worker_id integer,
    OUT sequence integer)
RETURNS record
AS 'MODULE_PATHNAME', 'snowflake_parse'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_parse(bigint) IS 'decode an id with the server''s epoch and layout';

CREATE FUNCTION snowflake_status(
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
    OUT lifetime_end timestamptz)
RETURNS record
AS 'MODULE_PATHNAME', 'snowflake_status'
LANGUAGE C VOLATILE PARALLEL SAFE;

CREATE VIEW snowflake_status AS SELECT * FROM snowflake_status();
COMMENT ON VIEW snowflake_status IS 'the generator of this node: layout, identity, counters, durable mark';
