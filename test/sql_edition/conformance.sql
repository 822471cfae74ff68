-- The decoding, time, encoding and operator queries (and the checks of
-- snowflake_generate's argument) that both editions
-- answer: test/sql_edition/003_conformance.pl runs this file against the C
-- extension and against the SQL edition (same epoch and layout) and requires
-- the same output, errors (message, DETAIL, HINT, SQLSTATE) included.
-- psql runs it with VERBOSITY verbose (LOCATION lines dropped) and
-- SHOW_CONTEXT never, and on past errors.
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 0;

-- ------------------------------------------------------------------ parse
SELECT * FROM snowflake_parse(910499571847892992);
SELECT * FROM snowflake_parse(0);
SELECT * FROM snowflake_parse(1);
SELECT * FROM snowflake_parse(4194303);
SELECT * FROM snowflake_parse(4194304);
SELECT * FROM snowflake_parse(9223372036854775807);
SELECT * FROM snowflake_parse(-1);
SELECT * FROM snowflake_parse(-9223372036854775808);
SELECT snowflake_parse(NULL) IS NULL AS strict;
SELECT x, p.* FROM (VALUES (1::bigint), (123456789012345678), (2125353617417306112)) v(x),
     snowflake_parse(x) p ORDER BY x;
-- with the layout as arguments
SELECT * FROM snowflake_parse(175928847299117063, 1420070400000, 5, 5, 12);
SELECT * FROM snowflake_parse(910499571847892992, 1288834974657, 0, 0, 22);
SELECT * FROM snowflake_parse(910499571847892992, 1288834974657, 10, 10, 8);
SELECT * FROM snowflake_parse(910499571847892992, 0, 5, 5, 12);
SELECT * FROM snowflake_parse(9223372036854775807, 253402300799999, 0, 0, 1);
SELECT * FROM snowflake_parse(9223372036854775807, 253402300799999, 14, 13, 1);
SELECT * FROM snowflake_parse(9223372036854775807, 0, 0, 0, 1);
SELECT * FROM snowflake_parse(1, -1, 5, 5, 12);
SELECT * FROM snowflake_parse(1, 253402300800000, 5, 5, 12);
SELECT * FROM snowflake_parse(1, 1288834974657, -1, 5, 12);
SELECT * FROM snowflake_parse(1, 1288834974657, 5, -2, 12);
SELECT * FROM snowflake_parse(1, 1288834974657, 5, 5, -3);
SELECT * FROM snowflake_parse(1, 1288834974657, 5, 5, 0);
SELECT * FROM snowflake_parse(1, 1288834974657, 10, 10, 9);
SELECT * FROM snowflake_parse(1, 1288834974657, 2147483647, 2147483647, 12);
SELECT * FROM snowflake_parse(-1, 1288834974657, 5, 5, 12);
SELECT * FROM snowflake_parse(-1, 1288834974657, 5, 5, 0);

-- -------------------------------------------------------------- timestamp
SELECT snowflake_timestamp(910499571847892992);
SELECT snowflake_timestamp(0), snowflake_timestamp(9223372036854775807);
SELECT snowflake_timestamp(-7);
SELECT snowflake_timestamp(NULL) IS NULL AS strict;
SELECT snowflake_timestamp(175928847299117063, 1420070400000, 5, 5, 12);
SELECT snowflake_timestamp(9223372036854775807, 253402300799999, 0, 0, 1);
SELECT snowflake_timestamp(4611686018427387904, 0, 0, 0, 1);
SELECT snowflake_timestamp(1, 1288834974657, 10, 10, 10);
SELECT snowflake_timestamp(-1, 1288834974657, 10, 10, 10);
SELECT snowflake_timestamp(-1, 1288834974657, 5, 5, 12);
SET TimeZone = 'America/New_York';
SELECT snowflake_timestamp(910499571847892992);
SET TimeZone = 'UTC';

-- ------------------------------------------------------------ time bounds
SELECT snowflake_min_id('2026-01-15 00:00:00+00'), snowflake_max_id('2026-01-15 00:00:00+00');
SELECT snowflake_min_id('2017-09-20 13:43:08.849+00'), snowflake_max_id('2017-09-20 13:43:08.849999+00');
SELECT snowflake_min_id('2017-09-20 13:43:08.8495+00'), snowflake_max_id('2017-09-20 13:43:08.8495+00');
SELECT snowflake_min_id('2010-11-04 01:42:54.657+00'), snowflake_max_id('2010-11-04 01:42:54.657+00');
SELECT snowflake_min_id('2080-07-10 17:30:30.208+00'), snowflake_max_id('2080-07-10 17:30:30.208999+00');
SELECT snowflake_min_id('2010-11-04 01:42:54.656999+00');
SELECT snowflake_max_id('2009-01-01 00:00:00+00');
SELECT snowflake_max_id('2080-07-10 17:30:30.209+00');
SELECT snowflake_min_id('2090-01-01 00:00:00+00');
SELECT snowflake_min_id('infinity');
SELECT snowflake_max_id('-infinity');
SELECT snowflake_min_id('4713-01-01 00:00:00+00 BC');
SELECT snowflake_max_id('294276-12-31 23:59:59.999999+00');
SELECT snowflake_min_id(NULL) IS NULL AS strict;
SET TimeZone = 'Asia/Kolkata';
SELECT snowflake_min_id('2009-06-01 12:00:00.123456+00');
SELECT snowflake_min_id('2026-01-15 00:00:00');
SET TimeZone = 'UTC';
SET DateStyle = 'SQL, DMY';
SELECT snowflake_min_id('2009-06-01 12:00:00+00');
SET DateStyle = 'ISO, MDY';
-- with the layout as arguments
SELECT snowflake_min_id('2026-01-15 00:00:00+00', 1420070400000, 5, 5, 12),
       snowflake_max_id('2026-01-15 00:00:00+00', 1420070400000, 5, 5, 12);
SELECT snowflake_min_id('2026-01-15 00:00:00+00', 0, 0, 0, 1),
       snowflake_max_id('2026-01-15 00:00:00+00', 0, 0, 0, 1);
SELECT snowflake_max_id('2026-01-15 00:00:00+00', 1288834974657, 10, 10, 8);
SELECT snowflake_min_id('2014-12-31 23:59:59.999+00', 1420070400000, 5, 5, 12);
SELECT snowflake_min_id('2026-01-15 00:00:00+00', 1288834974657, 10, 10, 9);
SELECT snowflake_min_id('infinity', 1288834974657, 10, 10, 9);
SELECT snowflake_min_id('infinity', 1288834974657, 5, 5, 12);
SELECT snowflake_min_id('2026-01-15 00:00:00+00', 253402300799999, 5, 5, 12);
SELECT snowflake_max_id('9999-12-31 23:59:59.999+00', 253402300799999, 14, 14, 0);
SELECT snowflake_max_id('9999-12-31 23:59:59.999+00', 253402300799999, 14, 13, 1);

-- -------------------------------------------------------------- text forms
SELECT snowflake_encode(910499571847892992) AS base62,
       snowflake_encode(910499571847892992, 'base32') AS base32,
       snowflake_encode(910499571847892992, 'hex') AS hex;
SELECT x, snowflake_encode(x), snowflake_encode(x, 'base32'), snowflake_encode(x, 'hex')
FROM (VALUES (0::bigint), (1), (61), (62), (4096), (2125353617417306112), (9223372036854775806),
             (9223372036854775807)) v(x) ORDER BY x;
SELECT snowflake_encode(1, 'BASE62'), snowflake_encode(1, 'Hex'), snowflake_encode(1, 'bAsE32');
SELECT snowflake_encode(-1);
SELECT snowflake_encode(-1, 'nope');
SELECT snowflake_encode(1, 'base64');
SELECT snowflake_encode(1, '');
SELECT snowflake_encode(1, ' hex');
SELECT snowflake_encode(1, 'hexadecimal-format-that-is-far-too-long-to-quote-in-full');
SELECT snowflake_encode(1, 'ＨＥＸ');
SELECT snowflake_encode(NULL) IS NULL AS strict;
SELECT snowflake_decode('15G63YLn9Ae'), snowflake_decode('0s8n-yh5e-2740-0', 'base32'),
       snowflake_decode('0CA2BE895C239000', 'hex'), snowflake_decode('0ca2be895c239000', 'HEX');
SELECT snowflake_decode('0'), snowflake_decode('00000000000000000000000000001'),
       snowflake_decode('AzL8n0Y58m7'), snowflake_decode('7ZZZZZZZZZZZZ', 'base32'),
       snowflake_decode('7fffffffffffffff', 'hex');
SELECT snowflake_decode('oOiIlL', 'base32'), snowflake_decode('--1--', 'base32');
SELECT snowflake_decode('AzL8n0Y58m8');
SELECT snowflake_decode('8000000000000000', 'hex');
SELECT snowflake_decode('80000000000000000', 'hex');
SELECT snowflake_decode('8000000000000', 'base32');
-- Out of range, but reads as a decimal id or as hex: the hint says so.
SELECT snowflake_decode('910499571847892992');
SELECT snowflake_decode('910499571847892992', 'base32');
SELECT snowflake_decode('0CA2BE895C239000');
SELECT snowflake_decode('00000000000000000ca2be895c239000', 'base32');
SELECT snowflake_decode('99999999999999999999');
SELECT snowflake_decode('8000000000000000Z');
SELECT snowflake_decode('15G63YL-9Ae');
SELECT snowflake_decode('15G63YLn9Ae ', 'base62');
SELECT snowflake_decode('0x1f', 'hex');
SELECT snowflake_decode('\x1f', 'hex');
SELECT snowflake_decode('1\2', 'hex');
SELECT snowflake_decode('1é', 'hex');
SELECT snowflake_decode('1 f', 'hex');
SELECT snowflake_decode('1g', 'hex');
SELECT snowflake_decode('7FFFFFFFFFFFFFFF', 'hex'), snowflake_decode('F', 'hex'),
       snowflake_decode('000000000000000f', 'hex');
SELECT snowflake_decode('F000000000000000', 'hex');
SELECT snowflake_decode('u', 'base32');
-- The format's width (11, 13), read by its bytes: every character, an
-- alias, lower case, a backslash, a hyphen, a character of two bytes.
SELECT snowflake_decode('zzzzzzzzzzz'), snowflake_decode('AzL8n0Y58m6'),
       snowflake_decode('7zzzzzzzzzzzz', 'base32'), snowflake_decode('0s8nyh5e2740o', 'base32'),
       snowflake_decode('IiLlOo0123456', 'base32');
SELECT snowflake_decode('B0000000000');
SELECT snowflake_decode('00000000\1a');
SELECT snowflake_decode('0000000000\', 'base32');
SELECT snowflake_decode('0000000-00000', 'base32');
SELECT snowflake_decode('000000000é');
SELECT snowflake_decode('00000000000é', 'base32');
SELECT snowflake_decode('00000000000U', 'base32');
SELECT snowflake_decode('u000000000000', 'base32');
SELECT snowflake_decode('9000000000000', 'base32');
SELECT snowflake_decode('12é3');
SELECT snowflake_decode('ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ!');
SELECT snowflake_decode('ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ');
SELECT snowflake_decode('ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ!');
SELECT snowflake_decode('ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZéé!');
SELECT snowflake_decode('', 'hex');
SELECT snowflake_decode('');
SELECT snowflake_decode('---', 'base32');
SELECT snowflake_decode('---', 'hex');
SELECT snowflake_decode('1', 'base16');
-- Long texts: read in one pass (the error, or the id, of the whole text).
SELECT snowflake_decode(repeat('1', 100000));
SELECT snowflake_decode(repeat('0', 100000) || '15G63YLn9Ae');
SELECT snowflake_decode(repeat('0', 100000) || '910499571847892992');
SELECT snowflake_decode(repeat('0', 100000) || '1', 'hex');
SELECT snowflake_decode(repeat('0', 99999) || '80000000000000000', 'hex');
SELECT snowflake_decode(repeat('1', 99999) || '!');
SELECT snowflake_decode(repeat('z', 99999) || 'é', 'base32');
SELECT snowflake_decode(repeat('-', 100000), 'base32');
SELECT snowflake_decode(repeat('0s8n-', 20000) || '0s8n-yh5e-2740-0', 'base32');
SELECT snowflake_decode(repeat('0', 200000) || '1');
SELECT snowflake_decode(repeat('9', 200000));
SELECT snowflake_decode(NULL) IS NULL AS strict;
SELECT count(*) AS round_trips FROM generate_series(0, 62 * 62 * 3, 7) x
WHERE snowflake_decode(snowflake_encode(x)) = x
  AND snowflake_decode(snowflake_encode(x, 'base32'), 'base32') = x
  AND snowflake_decode(snowflake_encode(x, 'hex'), 'hex') = x;
SELECT count(*) AS large_round_trips
FROM generate_series(0, 3000) i, LATERAL (SELECT 9223372036854775807 - i * 3074457345618258 AS x) v
WHERE snowflake_decode(snowflake_encode(x)) = x
  AND snowflake_decode(snowflake_encode(x, 'base32'), 'base32') = x
  AND snowflake_decode(snowflake_encode(x, 'hex'), 'hex') = x
  AND snowflake_decode(upper(snowflake_encode(x, 'hex')), 'hex') = x;

-- --------------------------------------------------------- the operator
SELECT x, r, x <@ r AS made_within
FROM (VALUES (910499571847892992::bigint), (910499571847892991), (910499571847897087),
             (910499571852087295), (910499571852087296), (0), (-1), (9223372036854775807)) v(x),
     (VALUES (tstzrange('2017-09-20 13:43:08.849+00', '2017-09-20 13:43:08.850+00')),
             (tstzrange('2017-09-20 13:43:08.849+00', '2017-09-20 13:43:08.850+00', '(]')),
             (tstzrange('2017-09-20 13:43:08.849+00', '2017-09-20 13:43:08.849+00', '[]')),
             (tstzrange('2017-09-20 13:43:08.8485+00', '2017-09-20 13:43:08.8495+00')),
             (tstzrange('2017-09-20 13:43:08.8485+00', '2017-09-20 13:43:08.8495+00', '()')),
             (tstzrange('2017-09-20 13:43:08.849+00', NULL)),
             (tstzrange(NULL, '2017-09-20 13:43:08.849+00')),
             (tstzrange(NULL, '2017-09-20 13:43:08.849+00', '(]')),
             (tstzrange(NULL, NULL)),
             (tstzrange('-infinity', 'infinity')),
             (tstzrange('infinity', 'infinity', '[]')),
             (tstzrange('-infinity', '-infinity', '[]')),
             (tstzrange('2017-09-20 13:43:08.849+00', 'infinity')),
             (tstzrange('-infinity', '2010-11-04 01:42:54.657+00', '[]')),
             (tstzrange('1900-01-01 00:00:00+00', '2010-11-04 01:42:54.657+00')),
             (tstzrange('2080-07-10 17:30:30.208+00', '3000-01-01 00:00:00+00')),
             (tstzrange('2080-07-10 17:30:30.209+00', '3000-01-01 00:00:00+00')),
             ('empty'::tstzrange)) w(r)
ORDER BY x, r;
SELECT NULL::bigint <@ tstzrange(NULL, NULL) IS NULL AS strict,
       1::bigint <@ NULL::tstzrange IS NULL AS strict_range;

-- ------------------------------------------------------------- many ids
-- (Only the checks of n: the C extension is not preloaded here.)
SELECT count(*) FROM snowflake_generate(NULL);
SELECT count(*) FROM snowflake_generate(0);
SELECT count(*) FROM snowflake_generate(-2147483648);
SELECT count(*) FROM snowflake_generate(1000001);
