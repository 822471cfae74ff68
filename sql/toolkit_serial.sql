-- snowflake_format / snowflake_parse_serial: business serial numbers
-- "prefix + UTC YYYYMMDDHH24MISSMS + datacenter + worker + sequence" under the
-- server's layout (5/5/12: 17 + 2 + 2 + 4 = 25 digits after the prefix).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS snowflake;
RESET client_min_messages;
SET TimeZone = 'UTC';
\set VERBOSITY default

-- The reference vector: 2017-09-20 13:43:08.849 UTC, datacenter 17, worker 25,
-- sequence 0000.
SELECT snowflake_format(910499571847892992) AS serial,
       snowflake_format(910499571847892992, 'ORD-') AS with_prefix,
       snowflake_format(910499571847892992, '') = snowflake_format(910499571847892992)
       AS default_prefix_is_empty;
SELECT snowflake_parse_serial('2017092013430884917250000') AS id,
       snowflake_parse_serial('ORD-2017092013430884917250000', 'ORD-') AS id_with_prefix;
-- The serial's time is UTC whatever the session's TimeZone.
SET TimeZone = 'Asia/Tokyo';
SELECT snowflake_format(910499571847892992) AS serial_in_tokyo;
SET TimeZone = 'UTC';

-- Edges of the id space.
SELECT v AS id, snowflake_format(v) AS serial
FROM unnest(ARRAY[0, 1, 4095, 4096, 131072, 9223372036854775807]::bigint[]) v;

-- Round trips over 100,000 random ids, with a fixed width for the prefix.
SELECT setseed(0.75);
CREATE TEMP TABLE random_ids AS
SELECT DISTINCT (floor(random() * 2147483648)::bigint << 32)
                | floor(random() * 4294967296)::bigint AS id
FROM generate_series(1, 100000);
SELECT count(*) AS ids,
       count(*) FILTER (WHERE snowflake_parse_serial(snowflake_format(id, 'INV'), 'INV') <> id)
       AS mismatches,
       count(DISTINCT length(snowflake_format(id, 'INV'))) AS widths,
       min(length(snowflake_format(id, 'INV'))) AS width
FROM random_ids;
-- Serials of one prefix sort like the ids (bytewise).
SELECT bool_and(rn_id = rn_serial) AS sorts_like_ids
FROM (SELECT row_number() OVER (ORDER BY id) AS rn_id,
             row_number() OVER (ORDER BY snowflake_format(id, 'INV') COLLATE "C") AS rn_serial
      FROM random_ids) s;
-- The serial is the parse's parts, spelled out.
SELECT bool_and(snowflake_format(id) =
                to_char(p.ts AT TIME ZONE 'UTC', 'YYYYMMDDHH24MISSMS')
                || lpad(p.datacenter_id::text, 2, '0') || lpad(p.worker_id::text, 2, '0')
                || lpad(p.sequence::text, 4, '0')) AS matches_to_char
FROM random_ids, LATERAL snowflake_parse(id) p;

-- The serial does not start with the prefix: ERROR (22P02).
SELECT snowflake_parse_serial('ORX-2017092013430884917250000', 'ORD-');
\echo :LAST_ERROR_SQLSTATE
SELECT snowflake_parse_serial('ord-2017092013430884917250000', 'ORD-');
SELECT snowflake_parse_serial('2017092013430884917250000', 'ORD-');
SELECT snowflake_parse_serial('OR', 'ORD-');
SELECT snowflake_parse_serial('ORD-2017092013430884917250000');

-- A non-digit after the prefix: ERROR (22P02) with its position in the whole
-- serial, the prefix counted (multibyte prefixes: toolkit_multibyte).
SELECT snowflake_parse_serial('ORD-2017-09-2013430884917250000', 'ORD-');
\echo :LAST_ERROR_SQLSTATE
SELECT snowflake_parse_serial('2017092013430884917250000 ');

-- Wrong length: ERROR (22P02).
SELECT snowflake_parse_serial('201709201343088491725000');
\echo :LAST_ERROR_SQLSTATE
SELECT snowflake_parse_serial('20170920134308849172500000');
SELECT snowflake_parse_serial('ORD-', 'ORD-');
SELECT snowflake_parse_serial('');
SELECT snowflake_parse_serial(repeat('1', 1000000));

-- An invalid date or time: ERROR (22008) at the field's first digit.
SELECT snowflake_parse_serial('2017132013430884917250000');
\echo :LAST_ERROR_SQLSTATE
SELECT snowflake_parse_serial('2017002013430884917250000');
SELECT snowflake_parse_serial('2017022913430884917250000');
SELECT snowflake_parse_serial('2020022913430884917250000') AS leap_day_ok;
SELECT snowflake_parse_serial('2017043113430884917250000');
SELECT snowflake_parse_serial('2017092024430884917250000');
SELECT snowflake_parse_serial('2017092013600884917250000');
SELECT snowflake_parse_serial('2017092013436084917250000');

-- Datacenter, worker or sequence beyond the layout: ERROR (22003) naming it.
SELECT snowflake_parse_serial('2017092013430884932250000');
\echo :LAST_ERROR_SQLSTATE
SELECT snowflake_parse_serial('2017092013430884917320000');
SELECT snowflake_parse_serial('INV2017092013430884917254096', 'INV');
SELECT snowflake_parse_serial('2017092013430884931314095') AS largest_parts;

-- Before the epoch or past the lifetime: ERROR (22008).
SELECT snowflake_parse_serial('2010110401425465600000000');
\echo :LAST_ERROR_SQLSTATE
SELECT snowflake_parse_serial('2010110401425465700000000') AS epoch_ms;
SELECT snowflake_parse_serial('2080071017303020831314095') AS last_ms;
SELECT snowflake_parse_serial('2080071017303020900000000');
SELECT snowflake_parse_serial('9999123123595999900000000');

-- A negative id: ERROR (22023), as snowflake_parse.
SELECT snowflake_format(-5);
\echo :LAST_ERROR_SQLSTATE
SELECT snowflake_format(-1, 'ORD-');

-- STRICT: NULL in, NULL out.
SELECT snowflake_format(NULL) IS NULL AS f1, snowflake_format(1, NULL) IS NULL AS f2,
       snowflake_parse_serial(NULL) IS NULL AS p1,
       snowflake_parse_serial('2017092013430884917250000', NULL) IS NULL AS p2;

SELECT p.oid::regprocedure AS function, provolatile, proisstrict, proparallel
FROM pg_proc p WHERE proname IN ('snowflake_format', 'snowflake_parse_serial')
ORDER BY proname;

DROP TABLE random_ids;
