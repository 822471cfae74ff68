-- Native declarative range partitioning by snowflake id, one partition per
-- month, with bounds from snowflake_min_id; pruning shown with EXPLAIN.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS snowflake;
RESET client_min_messages;
SET TimeZone = 'UTC';
\set VERBOSITY default

-- EXPLAIN ANALYZE printed the same on every PostgreSQL version: BUFFERS OFF
-- (18 shows buffers by default), and 18's fractional row counts
-- ("rows=96.00") and "Index Searches" lines taken out.
CREATE FUNCTION explain_analyze(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || query
    LOOP
        CONTINUE WHEN line ~ '^\s*Index Searches: ';
        RETURN NEXT regexp_replace(line, 'rows=(\d+)\.00 ', 'rows=\1 ', 'g');
    END LOOP;
END $$;

CREATE TABLE toolkit_orders (
    id bigint NOT NULL,
    note text
) PARTITION BY RANGE (id);

-- Partition bounds are evaluated once, when the partition is created, and
-- stored as constants.  Three equivalent ways to write them (always give
-- the time zone: '2026-01-01' alone would follow the session's TimeZone):
-- 1. the IMMUTABLE variant with the layout spelled out,
CREATE TABLE toolkit_orders_2026_01 PARTITION OF toolkit_orders FOR VALUES
    FROM (snowflake_min_id('2026-01-01 00:00:00+00', 1288834974657, 5, 5, 12))
    TO   (snowflake_min_id('2026-02-01 00:00:00+00', 1288834974657, 5, 5, 12));
-- 2. the STABLE form, which reads the server's layout,
CREATE TABLE toolkit_orders_2026_02 PARTITION OF toolkit_orders FOR VALUES
    FROM (snowflake_min_id('2026-02-01 00:00:00+00'))
    TO   (snowflake_min_id('2026-03-01 00:00:00+00'));
-- 3. values computed beforehand.
SELECT snowflake_min_id('2026-03-01 00:00:00+00') AS mar_from,
       snowflake_min_id('2026-04-01 00:00:00+00') AS mar_to \gset
CREATE TABLE toolkit_orders_2026_03 PARTITION OF toolkit_orders FOR VALUES
    FROM (:mar_from) TO (:mar_to);
ALTER TABLE toolkit_orders ADD PRIMARY KEY (id);

-- The stored bounds are plain numbers (so pg_dump restores them as they are).
SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound
FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid
WHERE i.inhparent = 'toolkit_orders'::regclass ORDER BY c.relname;
-- Upper bound = next month's lower bound, and each bound decodes to midnight.
SELECT snowflake_timestamp(snowflake_min_id('2026-02-01 00:00:00+00')) AS feb_starts,
       snowflake_max_id('2026-01-31 23:59:59.999+00') + 1
         = snowflake_min_id('2026-02-01 00:00:00+00') AS contiguous;

-- Rows across the three months: ids as this node would make them (datacenter
-- 17, worker 25) at chosen times, plus the first and last possible ids of
-- each month's edges.
INSERT INTO toolkit_orders
SELECT snowflake_min_id(t) + (17 << 17) + (25 << 12) + i % 4096, 'order ' || i
FROM generate_series(0, 8999) i,
     LATERAL (SELECT timestamptz '2026-01-01 00:00:00+00' + i * interval '15 min' AS t) s
WHERE t < '2026-04-01+00';
INSERT INTO toolkit_orders
SELECT b.id, 'edge ' || t
FROM unnest(ARRAY[timestamptz '2026-01-01 00:00:00+00', '2026-01-31 23:59:59.999+00',
                  '2026-02-01 00:00:00+00', '2026-02-28 23:59:59.999+00',
                  '2026-03-01 00:00:00+00', '2026-03-31 23:59:59.999+00']) t,
     LATERAL (VALUES (snowflake_min_id(t)), (snowflake_max_id(t))) b(id);
ANALYZE toolkit_orders;

-- Every row landed in the month its id encodes.
SELECT tableoid::regclass AS partition, count(*) AS rows,
       min(snowflake_timestamp(id)) AS first, max(snowflake_timestamp(id)) AS last
FROM toolkit_orders GROUP BY 1 ORDER BY 1;
SELECT count(*) AS misplaced FROM toolkit_orders
WHERE to_char(snowflake_timestamp(id), 'YYYY_MM')
      <> substr(tableoid::regclass::text, length('toolkit_orders_') + 1);
-- An id outside every month has no partition.
INSERT INTO toolkit_orders VALUES (snowflake_min_id('2026-04-01 00:00:00+00'), 'april');

-- Pruning with IMMUTABLE bounds happens at plan time: one partition planned.
EXPLAIN (COSTS OFF)
SELECT count(*) FROM toolkit_orders
WHERE id BETWEEN snowflake_min_id('2026-02-10 00:00:00+00', 1288834974657, 5, 5, 12)
             AND snowflake_max_id('2026-02-19 23:59:59.999+00', 1288834974657, 5, 5, 12);
SELECT count(*) FROM toolkit_orders
WHERE id BETWEEN snowflake_min_id('2026-02-10 00:00:00+00', 1288834974657, 5, 5, 12)
             AND snowflake_max_id('2026-02-19 23:59:59.999+00', 1288834974657, 5, 5, 12);
-- With the STABLE forms it happens when the executor starts: the other
-- partitions are "Subplans Removed" and never scanned.
EXPLAIN (COSTS OFF)
SELECT count(*) FROM toolkit_orders
WHERE id BETWEEN snowflake_min_id('2026-02-10 00:00:00+00')
             AND snowflake_max_id('2026-02-19 23:59:59.999+00');
-- Run, it scans only that partition (one day: 96 rows).
SELECT explain_analyze($$
SELECT count(note) FROM toolkit_orders
WHERE id BETWEEN snowflake_min_id('2026-02-10 00:00:00+00')
             AND snowflake_max_id('2026-02-10 23:59:59.999+00')$$);
-- A range across a month boundary touches exactly the two months.
EXPLAIN (COSTS OFF)
SELECT id FROM toolkit_orders
WHERE id BETWEEN snowflake_min_id('2026-01-31 12:00:00+00', 1288834974657, 5, 5, 12)
             AND snowflake_max_id('2026-02-01 12:00:00+00', 1288834974657, 5, 5, 12);
SELECT count(*) AS rows, count(*) FILTER (WHERE note LIKE 'edge%') AS edge_rows
FROM toolkit_orders
WHERE id BETWEEN snowflake_min_id('2026-01-31 12:00:00+00')
             AND snowflake_max_id('2026-02-01 12:00:00+00');

DROP TABLE toolkit_orders;

-- README's "a year of them at once", in a session whose TimeZone is not UTC.
-- Stepping a timestamptz by a month follows the session's zone: in New York
-- the steps from 2026-01-01 UTC land at 23:00 UTC on the 28th from March on,
-- two of them in March and none in April.  So the loop steps a zone-less
-- timestamp and reads each step as UTC.
SET TimeZone = 'America/New_York';
CREATE TABLE toolkit_events (
    id   bigint NOT NULL DEFAULT snowflake_nextval(),
    kind text   NOT NULL,
    PRIMARY KEY (id)
) PARTITION BY RANGE (id);
DO $$
DECLARE m timestamp;   -- a month start, UTC (a timestamp has no zone to follow)
BEGIN
    FOR m IN SELECT generate_series(timestamp '2026-01-01', timestamp '2026-12-01', interval '1 month')
    LOOP
        EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF toolkit_events FOR VALUES FROM (%s) TO (%s)',
                       'toolkit_events_' || to_char(m, 'YYYY_MM'),
                       snowflake_min_id(m AT TIME ZONE 'UTC'),
                       snowflake_min_id((m + interval '1 month') AT TIME ZONE 'UTC'));
    END LOOP;
END $$;
-- Twelve partitions, each from the first millisecond of its month (UTC) to
-- the first of the next, with no gap between them.
CREATE TEMP VIEW toolkit_event_bounds AS
SELECT c.relname, b[1] AS lo, b[2] AS hi
FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid,
     LATERAL (SELECT (regexp_match(pg_get_expr(c.relpartbound, c.oid),
                                   'FROM \(''(\d+)''\) TO \(''(\d+)''\)'))::bigint[] AS b) x
WHERE i.inhparent = 'toolkit_events'::regclass;
SELECT relname,
       snowflake_timestamp(lo) AT TIME ZONE 'UTC' AS from_utc,
       snowflake_timestamp(hi) AT TIME ZONE 'UTC' AS to_utc,
       lo = lag(hi) OVER (ORDER BY lo) AS contiguous
FROM toolkit_event_bounds ORDER BY lo;
-- Every id of 2026 has its partition: the first and the last id of each
-- month, and one from mid-April.
INSERT INTO toolkit_events SELECT lo, 'first' FROM toolkit_event_bounds;
INSERT INTO toolkit_events SELECT hi - 1, 'last' FROM toolkit_event_bounds;
INSERT INTO toolkit_events VALUES (snowflake_min_id('2026-04-15 12:00:00+00'), 'april');
SELECT tableoid::regclass AS partition FROM toolkit_events WHERE kind = 'april';
SELECT count(*) AS rows,
       count(*) FILTER (WHERE to_char(snowflake_timestamp(id) AT TIME ZONE 'UTC', 'YYYY_MM')
                              <> substr(tableoid::regclass::text, length('toolkit_events_') + 1))
         AS misplaced
FROM toolkit_events;
RESET TimeZone;
DROP VIEW toolkit_event_bounds;
DROP TABLE toolkit_events;
DROP FUNCTION explain_analyze(text);
