-- snowflake 1.0 -> 1.1: decoding and querying by id (time bounds, extractors,
-- IMMUTABLE variants, text encodings, business serial numbers).
\echo Use "ALTER EXTENSION snowflake UPDATE TO '1.1'" to load this file. \quit

-- Time <-> id, with the server's epoch and layout (STABLE: they read the
-- server's settings).
CREATE FUNCTION snowflake_timestamp(id bigint)
RETURNS timestamptz
AS 'MODULE_PATHNAME', 'snowflake_timestamp'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_timestamp(bigint) IS 'when an id was made: (snowflake_parse(id)).ts, faster';

CREATE FUNCTION snowflake_min_id(ts timestamptz)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_min_id(timestamptz) IS 'smallest id any node can make in the millisecond of ts';

CREATE FUNCTION snowflake_max_id(ts timestamptz)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_max_id(timestamptz) IS 'largest id any node can make in the millisecond of ts';

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

-- Fixed-width text forms that sort like the ids (compare them with
-- COLLATE "C"): base62 (11 chars), Crockford base32 (13), hex (16).
CREATE FUNCTION snowflake_encode(id bigint, format text DEFAULT 'base62')
RETURNS text
AS 'MODULE_PATHNAME', 'snowflake_encode'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_encode(bigint, text) IS 'id as fixed-width base62, base32 (Crockford) or hex text';

CREATE FUNCTION snowflake_decode(txt text, format text DEFAULT 'base62')
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_decode'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_decode(text, text) IS 'id from base62, base32 (Crockford) or hex text';

-- Business serial numbers: prefix, UTC YYYYMMDDHH24MISSMS, then datacenter,
-- worker and sequence zero-padded (STABLE: the widths are the server's).
CREATE FUNCTION snowflake_format(id bigint, prefix text DEFAULT '')
RETURNS text
AS 'MODULE_PATHNAME', 'snowflake_format'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_format(bigint, text) IS 'business serial number: prefix, UTC time to the ms, datacenter, worker, sequence';

CREATE FUNCTION snowflake_parse_serial(serial text, prefix text DEFAULT '')
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_parse_serial'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_parse_serial(text, text) IS 'the id of a serial number made by snowflake_format';
