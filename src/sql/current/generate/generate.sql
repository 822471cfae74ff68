CREATE FUNCTION snowflake_generate(n integer)
RETURNS SETOF bigint
AS 'MODULE_PATHNAME', 'snowflake_generate'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION snowflake_generate(integer) IS 'n ids in increasing order, taken in blocks';
