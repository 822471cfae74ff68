-- snowflake_parse: the reference vector, the parts, NULL and bad input.
CREATE EXTENSION snowflake;
SET TimeZone = 'UTC';

-- SPEC's reference vector: epoch 1288834974657, 2017-09-20 13:43:08.849 UTC,
-- datacenter 17, worker 25, sequence 0.
SELECT * FROM snowflake_parse(910499571847892992);
SELECT (snowflake_parse(910499571847892992)).ts AT TIME ZONE 'UTC' AS utc;

-- Edges of the id space.
SELECT * FROM snowflake_parse(0);
SELECT * FROM snowflake_parse(9223372036854775807);
SELECT * FROM snowflake_parse(4095);              -- sequence only
SELECT * FROM snowflake_parse(4096);              -- lowest worker bit
SELECT * FROM snowflake_parse(131072);            -- lowest datacenter bit
SELECT * FROM snowflake_parse(4194304);           -- first millisecond after the epoch

-- STRICT: NULL in, NULL out.
SELECT snowflake_parse(NULL) IS NULL AS null_in_null_out;

-- Negative ids are refused with a DETAIL.
\set VERBOSITY default
SELECT * FROM snowflake_parse(-5);
SELECT * FROM snowflake_parse(-9223372036854775808);

-- Function properties users rely on.
SELECT proname, provolatile, proisstrict, proparallel
FROM pg_proc WHERE proname IN ('snowflake_parse', 'snowflake_nextval', 'snowflake_generate')
ORDER BY proname, pronargs;
