-- The same with the epoch and widths as arguments (IMMUTABLE: for
-- expression indexes, partition bounds and ids made under another layout).
CREATE FUNCTION snowflake_parse(
    id bigint,
    epoch_ms bigint,
    datacenter_bits integer,
    worker_bits integer,
    sequence_bits integer,
    OUT ts timestamptz,
    OUT unix_ms bigint,
    OUT datacenter_id integer,
    OUT worker_id integer,
    OUT sequence integer)
RETURNS record
AS 'MODULE_PATHNAME', 'snowflake_parse_with_layout'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_parse(bigint, bigint, integer, integer, integer) IS 'decode an id under the given epoch and layout';

CREATE FUNCTION snowflake_timestamp(
    id bigint, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS timestamptz
AS 'MODULE_PATHNAME', 'snowflake_timestamp_with_layout'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_timestamp(bigint, bigint, integer, integer, integer) IS 'when an id was made, under the given epoch and layout';

CREATE FUNCTION snowflake_min_id(
    ts timestamptz, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_with_layout'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_min_id(timestamptz, bigint, integer, integer, integer) IS 'smallest id in the millisecond of ts, under the given epoch and layout';

CREATE FUNCTION snowflake_max_id(
    ts timestamptz, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_with_layout'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_max_id(timestamptz, bigint, integer, integer, integer) IS 'largest id in the millisecond of ts, under the given epoch and layout';
