-- Time <-> id: snowflake_timestamp, snowflake_min_id / snowflake_max_id, their
-- IMMUTABLE variants with the layout as arguments, and range scans on the
-- primary key.  The server layout is the default (epoch 1288834974657, 5/5/12).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS snowflake;
RESET client_min_messages;
SET TimeZone = 'UTC';
\set VERBOSITY default

-- The reference vector: same answer as snowflake_parse.
SELECT snowflake_timestamp(910499571847892992);
SELECT snowflake_timestamp(910499571847892992) = (snowflake_parse(910499571847892992)).ts
       AS same_as_parse;
SELECT snowflake_timestamp(0) AS first_ms, snowflake_timestamp(9223372036854775807) AS last_ms;

-- Same answer as (snowflake_parse(id)).ts over 100,000 random ids.
SELECT setseed(0.5);
SELECT count(*) AS ids,
       count(*) FILTER (WHERE snowflake_timestamp(id) IS DISTINCT FROM (snowflake_parse(id)).ts)
       AS mismatches
FROM (SELECT (floor(random() * 2147483648)::bigint << 32) | floor(random() * 4294967296)::bigint AS id
      FROM generate_series(1, 100000)) r;

-- Bounds of one millisecond: the node and sequence bits all 0, then all 1.
SELECT snowflake_min_id('2017-09-20 13:43:08.849+00') AS min_id,
       snowflake_max_id('2017-09-20 13:43:08.849+00') AS max_id,
       snowflake_max_id('2017-09-20 13:43:08.849+00')
         - snowflake_min_id('2017-09-20 13:43:08.849+00') + 1 AS ids_per_ms;
SELECT p.* FROM snowflake_parse(snowflake_min_id('2017-09-20 13:43:08.849+00')) p
UNION ALL
SELECT p.* FROM snowflake_parse(snowflake_max_id('2017-09-20 13:43:08.849+00')) p;
-- The reference id lies within its millisecond's bounds.
SELECT 910499571847892992 BETWEEN snowflake_min_id('2017-09-20 13:43:08.849+00')
                              AND snowflake_max_id('2017-09-20 13:43:08.849+00') AS inside;

-- Microseconds are truncated toward -infinity to the millisecond, also before
-- 2000-01-01, where timestamptz counts negative microseconds (shown with the
-- Unix epoch as the layout's epoch).
SELECT snowflake_min_id('2017-09-20 13:43:08.849999+00') = snowflake_min_id('2017-09-20 13:43:08.849+00')
       AS floor_after_2000,
       snowflake_max_id('2017-09-20 13:43:08.849999+00') = snowflake_max_id('2017-09-20 13:43:08.849+00')
       AS floor_after_2000_max,
       snowflake_min_id('1999-12-31 23:59:59.9995+00', 0, 5, 5, 12)
         = snowflake_min_id('1999-12-31 23:59:59.999+00', 0, 5, 5, 12) AS floor_before_2000,
       snowflake_timestamp(snowflake_max_id('1999-12-31 23:59:59.999999+00', 0, 5, 5, 12), 0, 5, 5, 12)
         AS ms_before_2000;

-- Consecutive milliseconds tile the id space: max_id(t) + 1 = min_id(t + 1 ms),
-- and every id decodes to the millisecond whose bounds hold it.
SELECT bool_and(snowflake_max_id(t) + 1 = snowflake_min_id(t + interval '1 ms')) AS tiled,
       bool_and(snowflake_timestamp(snowflake_min_id(t)) = t
                AND snowflake_timestamp(snowflake_max_id(t)) = t) AS round_trip
FROM generate_series(timestamptz '2026-01-31 23:59:59.990+00',
                     timestamptz '2026-02-01 00:00:00.010+00', interval '1 ms') t;

-- Edges of the lifetime: the epoch's millisecond and the last one.
SELECT snowflake_min_id('2010-11-04 01:42:54.657+00') AS epoch_min_id,
       snowflake_max_id('2080-07-10 17:30:30.208+00') AS last_max_id;

-- A time before the epoch, past the lifetime, or infinite: ERROR (22008).
SELECT snowflake_min_id('2010-11-04 01:42:54.656999+00');
\echo :LAST_ERROR_SQLSTATE
SELECT snowflake_max_id('2010-11-04 01:42:54.656+00');
SELECT snowflake_min_id('2080-07-10 17:30:30.209+00');
SELECT snowflake_max_id('2080-07-10 17:30:30.209+00');
SELECT snowflake_min_id('infinity');
SELECT snowflake_max_id('-infinity');
SELECT snowflake_timestamp(-1);
SELECT snowflake_timestamp(-9223372036854775808);

-- STRICT: NULL in, NULL out.
SELECT snowflake_timestamp(NULL) IS NULL AS ts_null, snowflake_min_id(NULL) IS NULL AS min_null,
       snowflake_max_id(NULL) IS NULL AS max_null;

-- IMMUTABLE variants with the server's layout give the same answers.
SELECT setseed(0.25);
SELECT count(*) AS ids,
       count(*) FILTER (WHERE snowflake_timestamp(id, 1288834974657, 5, 5, 12)
                              IS DISTINCT FROM snowflake_timestamp(id)) AS ts_mismatches,
       count(*) FILTER (WHERE row(snowflake_parse(id, 1288834974657, 5, 5, 12))
                              IS DISTINCT FROM row(snowflake_parse(id))) AS parse_mismatches,
       count(*) FILTER (WHERE snowflake_min_id(snowflake_timestamp(id), 1288834974657, 5, 5, 12)
                              IS DISTINCT FROM snowflake_min_id(snowflake_timestamp(id))
                           OR snowflake_max_id(snowflake_timestamp(id), 1288834974657, 5, 5, 12)
                              IS DISTINCT FROM snowflake_max_id(snowflake_timestamp(id)))
       AS bound_mismatches
FROM (SELECT (floor(random() * 2147483648)::bigint << 32) | floor(random() * 4294967296)::bigint AS id
      FROM generate_series(1, 10000)) r;

-- ... and decode ids made under another layout: Discord's epoch (2015-01-01)
-- with 5/5/12, and a 10-bit worker id with no datacenter bits.
SELECT * FROM snowflake_parse(175928847299117063, 1420070400000, 5, 5, 12);
SELECT snowflake_timestamp(175928847299117063, 1420070400000, 5, 5, 12);
SELECT * FROM snowflake_parse(snowflake_min_id('2026-03-01+00', 1577836800000, 0, 10, 12)
                              + (1023 << 12) + 7, 1577836800000, 0, 10, 12);
SELECT snowflake_min_id('2026-03-01+00', 1577836800000, 0, 10, 12) AS min_id,
       snowflake_max_id('2026-03-01+00', 1577836800000, 0, 10, 12) AS max_id;
-- The widest timestamp (sequence 1 bit, nothing else): ids past timestamptz's range.
SELECT snowflake_max_id('294276-12-31 23:59:59.999+00', 0, 0, 0, 1) AS last_timestamptz_ms_id;
SELECT snowflake_timestamp(snowflake_max_id('294276-12-31 23:59:59.999+00', 0, 0, 0, 1), 0, 0, 0, 1);
SELECT snowflake_timestamp(9223372036854775807, 0, 0, 0, 1);
-- Bounds with another epoch refuse times before it.
SELECT snowflake_min_id('2019-12-31 23:59:59.999+00', 1577836800000, 0, 10, 12);

-- Invalid layout arguments: ERROR (22023) naming the argument.
SELECT snowflake_timestamp(1, -1, 5, 5, 12);
SELECT snowflake_timestamp(1, 253402300800000, 5, 5, 12);
SELECT snowflake_timestamp(1, 253402300799999, 5, 5, 12);
SELECT * FROM snowflake_parse(1, 0, -1, 5, 12);
SELECT snowflake_min_id(now(), 0, 5, -1, 12);
SELECT snowflake_max_id(now(), 0, 5, 5, -12);
SELECT snowflake_timestamp(1, 0, 5, 5, 0);
SELECT snowflake_timestamp(1, 0, 10, 10, 9);
SELECT snowflake_timestamp(1, 0, 2147483647, 2147483647, 2147483647);
SELECT * FROM snowflake_parse(-5, 0, 5, 5, 12);
SELECT snowflake_timestamp(-5, 0, 5, 5, 12);
-- STRICT, with any argument NULL.
SELECT snowflake_timestamp(1, NULL, 5, 5, 12) IS NULL AS ts_null,
       snowflake_min_id(now(), 0, 5, NULL, 12) IS NULL AS min_null,
       (snowflake_parse(1, 0, 5, 5, NULL)).ts IS NULL AS parse_null;

-- Function properties: STABLE forms read the server's settings, the
-- variants with the layout as arguments are IMMUTABLE; all PARALLEL SAFE.
SELECT p.oid::regprocedure AS function, provolatile, proisstrict, proparallel
FROM pg_proc p
WHERE proname IN ('snowflake_timestamp', 'snowflake_min_id', 'snowflake_max_id', 'snowflake_parse')
ORDER BY proname, pronargs;

-- Range scans: rows at chosen times, with ids made from the bounds plus node
-- and sequence bits (tests cannot control the clock).  Each millisecond of
-- 20 s gets one row, and the edge milliseconds also their smallest and
-- largest possible ids.
CREATE TABLE toolkit_events (id bigint PRIMARY KEY, made timestamptz NOT NULL);
INSERT INTO toolkit_events
SELECT snowflake_min_id(t) + (i * 7919) % 4194304, t
FROM generate_series(0, 19999) i,
     LATERAL (SELECT timestamptz '2026-01-15 12:00:00+00' + i * interval '1 ms' AS t) s;
INSERT INTO toolkit_events
SELECT b.id, t
FROM unnest(ARRAY[timestamptz '2026-01-15 12:00:04.999+00', '2026-01-15 12:00:05+00',
                  '2026-01-15 12:00:05.099+00', '2026-01-15 12:00:05.1+00']) t,
     LATERAL (VALUES (snowflake_min_id(t)), (snowflake_max_id(t))) b(id)
ON CONFLICT DO NOTHING;
VACUUM ANALYZE toolkit_events;
SELECT count(*) AS rows FROM toolkit_events;

-- Exactly the rows made from a to b, both ends included, b to the
-- millisecond (its microseconds are dropped).
SELECT count(*) AS rows, min(made), max(made)
FROM toolkit_events
WHERE id BETWEEN snowflake_min_id('2026-01-15 12:00:05+00')
             AND snowflake_max_id('2026-01-15 12:00:05.099999+00');
SELECT (SELECT count(*) FROM toolkit_events
        WHERE made >= '2026-01-15 12:00:05+00' AND made < '2026-01-15 12:00:05.1+00') AS by_time;
SELECT count(*) AS differences FROM (
    (SELECT id FROM toolkit_events
     WHERE id BETWEEN snowflake_min_id('2026-01-15 12:00:05+00')
                  AND snowflake_max_id('2026-01-15 12:00:05.099999+00')
     EXCEPT
     SELECT id FROM toolkit_events
     WHERE made >= '2026-01-15 12:00:05+00' AND made < '2026-01-15 12:00:05.1+00')
    UNION ALL
    (SELECT id FROM toolkit_events
     WHERE made >= '2026-01-15 12:00:05+00' AND made < '2026-01-15 12:00:05.1+00'
     EXCEPT
     SELECT id FROM toolkit_events
     WHERE id BETWEEN snowflake_min_id('2026-01-15 12:00:05+00')
                  AND snowflake_max_id('2026-01-15 12:00:05.099999+00'))) d;
-- Every 10 ms window of the 20 s, checked the same way.
CREATE INDEX toolkit_events_made ON toolkit_events (made);
SELECT count(*) AS windows_checked,
       count(*) FILTER (WHERE by_id <> by_time) AS windows_wrong
FROM (SELECT w,
             (SELECT count(*) FROM toolkit_events
              WHERE id BETWEEN snowflake_min_id(w) AND snowflake_max_id(w + interval '9 ms'))
               AS by_id,
             (SELECT count(*) FROM toolkit_events
              WHERE made >= w AND made < w + interval '10 ms') AS by_time
      FROM generate_series(timestamptz '2026-01-15 12:00:00+00',
                           timestamptz '2026-01-15 12:00:20+00', interval '10 ms') w) c;

-- The primary-key index serves the range scan, with the STABLE bounds
-- computed once at executor start ...
EXPLAIN (COSTS OFF)
SELECT id FROM toolkit_events
WHERE id BETWEEN snowflake_min_id('2026-01-15 12:00:05+00')
             AND snowflake_max_id('2026-01-15 12:00:05.099+00');
EXPLAIN (COSTS OFF)
SELECT * FROM toolkit_events
WHERE id BETWEEN snowflake_min_id('2026-01-15 12:00:05+00')
             AND snowflake_max_id('2026-01-15 12:00:05.099+00');
-- ... and the IMMUTABLE bounds are folded to constants at plan time.
EXPLAIN (COSTS OFF)
SELECT * FROM toolkit_events
WHERE id BETWEEN snowflake_min_id('2026-01-15 12:00:05+00', 1288834974657, 5, 5, 12)
             AND snowflake_max_id('2026-01-15 12:00:05.099+00', 1288834974657, 5, 5, 12);

-- An expression index on the IMMUTABLE extractor answers queries by time
-- (with snowflake.time_predicates off: by default the planner turns the
-- condition into bounds on id, and the primary key answers it, as below).
CREATE INDEX toolkit_events_made_idx
    ON toolkit_events (snowflake_timestamp(id, 1288834974657, 5, 5, 12));
ANALYZE toolkit_events;
SET snowflake.time_predicates = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM toolkit_events
WHERE snowflake_timestamp(id, 1288834974657, 5, 5, 12) >= '2026-01-15 12:00:05+00'
  AND snowflake_timestamp(id, 1288834974657, 5, 5, 12) < '2026-01-15 12:00:05.1+00';
RESET snowflake.time_predicates;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM toolkit_events
WHERE snowflake_timestamp(id, 1288834974657, 5, 5, 12) >= '2026-01-15 12:00:05+00'
  AND snowflake_timestamp(id, 1288834974657, 5, 5, 12) < '2026-01-15 12:00:05.1+00';
SELECT count(*) FROM toolkit_events
WHERE snowflake_timestamp(id, 1288834974657, 5, 5, 12) >= '2026-01-15 12:00:05+00'
  AND snowflake_timestamp(id, 1288834974657, 5, 5, 12) < '2026-01-15 12:00:05.1+00';
-- The STABLE form cannot be indexed (the error alone: PostgreSQL 19 adds
-- its position).
DO $$
BEGIN
    CREATE INDEX ON toolkit_events (snowflake_timestamp(id));
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE '% %', SQLSTATE, SQLERRM;
END $$;

DROP TABLE toolkit_events;
