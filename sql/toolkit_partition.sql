-- Native declarative range partitioning by snowflake id, one partition per
-- month, with bounds from snowflake_min_id; pruning shown with EXPLAIN.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS snowflake;
RESET client_min_messages;
SET TimeZone = 'UTC';
\set VERBOSITY default

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
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(note) FROM toolkit_orders
WHERE id BETWEEN snowflake_min_id('2026-02-10 00:00:00+00')
             AND snowflake_max_id('2026-02-10 23:59:59.999+00');
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
