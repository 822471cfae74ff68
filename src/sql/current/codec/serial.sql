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
