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
