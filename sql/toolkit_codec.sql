-- snowflake_encode / snowflake_decode: fixed-width base62, Crockford base32
-- and hex text forms of ids, exact round trips, sort order, and every error.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS snowflake;
RESET client_min_messages;
\set VERBOSITY default

-- Edge values and the reference vector in every format; fixed widths 11, 13, 16.
SELECT v AS id, snowflake_encode(v) AS base62, snowflake_encode(v, 'base32') AS base32,
       snowflake_encode(v, 'hex') AS hex
FROM unnest(ARRAY[0, 1, 61, 62, 9007199254740992, 910499571847892992,
                  9223372036854775807]::bigint[]) v;
SELECT DISTINCT length(snowflake_encode(v)) AS base62_width,
       length(snowflake_encode(v, 'base32')) AS base32_width,
       length(snowflake_encode(v, 'hex')) AS hex_width
FROM unnest(ARRAY[0, 1, 9223372036854775807]::bigint[]) v;
-- The default format is base62; format names are case-insensitive.
SELECT snowflake_encode(910499571847892992) = snowflake_encode(910499571847892992, 'BASE62')
       AS default_is_base62,
       snowflake_decode('0S8NYH5E27400', 'Base32') AS base32_mixed_case_name,
       snowflake_decode('0ca2be895c239000', 'HEX') AS hex_upper_name;

-- Round trips are exact: the edges, and 100,000 random ids per format
-- (all 63 bits random).
SELECT f AS format,
       bool_and(snowflake_decode(snowflake_encode(v, f), f) = v) AS edges_round_trip
FROM unnest(ARRAY['base62', 'base32', 'hex']) f,
     unnest(ARRAY[0, 1, 9007199254740992, 9007199254740993, 9223372036854775806,
                  9223372036854775807]::bigint[]) v
GROUP BY f ORDER BY f;
SELECT setseed(0.125);
CREATE TEMP TABLE random_ids AS
SELECT (floor(random() * 2147483648)::bigint << 32) | floor(random() * 4294967296)::bigint AS id
FROM generate_series(1, 100000);
SELECT f AS format, count(*) AS ids,
       count(*) FILTER (WHERE snowflake_decode(snowflake_encode(id, f), f) <> id) AS mismatches,
       count(DISTINCT length(snowflake_encode(id, f))) AS widths
FROM unnest(ARRAY['base62', 'base32', 'hex']) f, random_ids
GROUP BY f ORDER BY f;

-- Fixed width and alphabets in ASCII order: encoded ids sort like the ids
-- under a bytewise collation (COLLATE "C").
SELECT f AS format,
       bool_and(rn_id = rn_text) AS sorts_like_ids
FROM (SELECT f, row_number() OVER (PARTITION BY f ORDER BY id) AS rn_id,
             row_number() OVER (PARTITION BY f ORDER BY snowflake_encode(id, f) COLLATE "C")
               AS rn_text
      FROM unnest(ARRAY['base62', 'base32', 'hex']) f,
           (SELECT DISTINCT id FROM random_ids) r) s
GROUP BY f ORDER BY f;

-- Decoding accepts shorter forms and leading zeros (any length that fits).
SELECT snowflake_decode('z') AS base62_z, snowflake_decode('10') AS base62_10,
       snowflake_decode('00000000000000000000000000001') AS leading_zeros,
       snowflake_decode('ff', 'hex') AS hex_ff, snowflake_decode('Z', 'base32') AS base32_z;
SELECT snowflake_decode(repeat('0', 1000000) || '7', 'hex') AS million_zeros;
-- base62 is case-sensitive; hex is not.
SELECT snowflake_decode('a') AS lower_a, snowflake_decode('A') AS upper_a,
       snowflake_decode('ABCDEF', 'hex') = snowflake_decode('abcdef', 'hex') AS hex_any_case;
-- Crockford base32: case-insensitive, O reads as 0, I and L as 1, hyphens ignored.
SELECT snowflake_decode('0s8nyh5e27400', 'base32') AS lower_case,
       snowflake_decode('OS8NYH5E274OO', 'base32') AS o_is_0,
       snowflake_decode('1IiLl', 'base32') = snowflake_decode('11111', 'base32') AS i_l_are_1,
       snowflake_decode('0S8N-YH5E-2740-0', 'base32') AS hyphens,
       snowflake_decode('-0S8NYH5E27400-', 'base32') AS outer_hyphens;

-- A bad character: ERROR (22P02) with its position, also far into a long
-- text (multibyte characters: toolkit_multibyte).
SELECT snowflake_decode('15G63YL-9Ae');
\echo :LAST_ERROR_SQLSTATE
SELECT snowflake_decode(' 15G63YLn9Ae');
SELECT snowflake_decode('15G63YLn9Ae ');
SELECT snowflake_decode('0U', 'base32');
SELECT snowflake_decode('0S8NYH5E2740*', 'base32');
SELECT snowflake_decode('0x1f', 'hex');
SELECT snowflake_decode('12 34', 'hex');
SELECT snowflake_decode('ab-cd', 'hex');
SELECT snowflake_decode('ab-cd', 'base62');
SELECT snowflake_decode(repeat('0', 100000) || 'g', 'hex');
-- A bad character is reported even after the value has overflowed.
SELECT snowflake_decode('zzzzzzzzzzzzzzzzzzzz!');

-- Overflow beyond 2^63-1: ERROR (22003).  2^63 in each format, then longer.
SELECT snowflake_decode('AzL8n0Y58m8');
\echo :LAST_ERROR_SQLSTATE
SELECT snowflake_decode('AzL8n0Y58m7') AS max_base62;
SELECT snowflake_decode('8000000000000', 'base32');
SELECT snowflake_decode('7ZZZZZZZZZZZZ', 'base32') AS max_base32;
SELECT snowflake_decode('8000000000000000', 'hex');
SELECT snowflake_decode('7fffffffffffffff', 'hex') AS max_hex;
SELECT snowflake_decode('ffffffffffffffff', 'hex');
SELECT snowflake_decode('10000000000000000', 'hex');
SELECT snowflake_decode(repeat('z', 1000000));

-- Text that is not in the format asked for but reads as a decimal id or as
-- hex: the HINT says how to read it.
SELECT snowflake_decode('910499571847892992');
SELECT snowflake_decode('910499571847892992', 'base32');
SELECT snowflake_decode('9223372036854775807', 'hex');
SELECT snowflake_decode('0ca2be895c239000');
SELECT snowflake_decode('0CA2BE895C239000', 'base32');
-- What the hints suggest gives the id.
SELECT '910499571847892992'::bigint AS decimal, snowflake_decode('0ca2be895c239000', 'hex') AS hex;
-- No hint for what is neither (above 2^63-1 as decimal; hex that overflows).
SELECT snowflake_decode('9223372036854775808');
SELECT snowflake_decode('ffffffffffffffffff');

-- An empty string (or only hyphens in base32): ERROR (22P02).
SELECT snowflake_decode('');
\echo :LAST_ERROR_SQLSTATE
SELECT snowflake_decode('', 'hex');
SELECT snowflake_decode('---', 'base32');

-- An unknown format: ERROR (22023) with the valid ones in a HINT.
SELECT snowflake_encode(1, 'base64');
\echo :LAST_ERROR_SQLSTATE
SELECT snowflake_decode('1', 'base 62');
SELECT snowflake_decode('1', '');
SELECT snowflake_encode(1, ' hex');
SELECT snowflake_encode(1, repeat('x', 100));

-- A negative id: ERROR (22023), as snowflake_parse.
SELECT snowflake_encode(-5);
\echo :LAST_ERROR_SQLSTATE
SELECT snowflake_encode(-9223372036854775808, 'hex');

-- STRICT: NULL in, NULL out.
SELECT snowflake_encode(NULL) IS NULL AS enc_null, snowflake_encode(1, NULL) IS NULL AS fmt_null,
       snowflake_decode(NULL) IS NULL AS dec_null, snowflake_decode('1', NULL) IS NULL AS fmt2_null;

-- JSON-safe: ids beyond 2^53 lose precision as JSON numbers in JavaScript;
-- as text they survive.
SELECT json_build_object('id', snowflake_encode(910499571847892992),
                         'id_text', 910499571847892992::text) AS api_row;

-- IMMUTABLE, so usable in an index: look a row up by its public text id.
CREATE TABLE toolkit_links (id bigint PRIMARY KEY);
INSERT INTO toolkit_links SELECT id FROM random_ids ON CONFLICT DO NOTHING;
CREATE INDEX toolkit_links_public_idx ON toolkit_links (snowflake_encode(id));
ANALYZE toolkit_links;
EXPLAIN (COSTS OFF)
SELECT id FROM toolkit_links WHERE snowflake_encode(id) = '15G63YLn9Ae';
EXPLAIN (COSTS OFF)
SELECT id FROM toolkit_links WHERE id = snowflake_decode('15G63YLn9Ae');

SELECT p.oid::regprocedure AS function, provolatile, proisstrict, proparallel
FROM pg_proc p WHERE proname IN ('snowflake_encode', 'snowflake_decode')
ORDER BY proname;

DROP TABLE toolkit_links;
DROP TABLE random_ids;
