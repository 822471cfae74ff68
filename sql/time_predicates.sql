-- Time predicates on snowflake ids use the id's index and prune partitions:
-- snowflake_timestamp(id) >= x and the other natural forms (the planner
-- hook, snowflake.time_predicates), and id <@ tstzrange (the operator's
-- planner support function).  Every form returns exactly the rows of the
-- plain snowflake_timestamp(id) filter, which is the oracle here.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS snowflake;
RESET client_min_messages;
SET TimeZone = 'UTC';
-- Plans without parallel workers, the same on every PostgreSQL version,
-- from statistics of every row (ANALYZE samples 300 x the target rows) and
-- of this test's ANALYZE only (no autovacuum on its tables).
SET max_parallel_workers_per_gather = 0;
SET default_statistics_target = 1000;
\set VERBOSITY default

-- ------------------------------------------------------------ the table
-- 60 days, 1000 rows a day, ids as a node (datacenter 17, worker 25) makes
-- them; a primary key on id.
CREATE TABLE tp_orders (id bigint PRIMARY KEY, note text) WITH (autovacuum_enabled = off);
INSERT INTO tp_orders
SELECT snowflake_min_id(t) + (17 << 17) + (25 << 12) + g % 4096, 'order ' || g
FROM generate_series(0, 59999) g,
     LATERAL (SELECT timestamptz '2026-01-01 00:00:00+00' + g * interval '86.4 s' AS t) s;
VACUUM ANALYZE tp_orders;

-- ------------------------------------------------ the natural forms: plans
-- A constant window: the bounds are constants, so the planner knows the
-- rows from the id's statistics and scans one range of the primary key.
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders
WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11';
SELECT count(*) FROM tp_orders
WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11';
-- BETWEEN, > and <=, = and the comparison written the other way round.
EXPLAIN (COSTS OFF)
SELECT note FROM tp_orders
WHERE snowflake_timestamp(id) BETWEEN '2026-02-10 12:00' AND '2026-02-10 12:10';
EXPLAIN (COSTS OFF)
SELECT note FROM tp_orders
WHERE snowflake_timestamp(id) > '2026-02-10 12:00' AND snowflake_timestamp(id) <= '2026-02-10 12:10';
EXPLAIN (COSTS OFF)
SELECT note FROM tp_orders WHERE '2026-02-10 12:00:00.5' <= snowflake_timestamp(id)
                             AND '2026-02-10 12:10' > snowflake_timestamp(id);
EXPLAIN (COSTS OFF)
SELECT note FROM tp_orders WHERE snowflake_timestamp(id) = '2026-02-10 12:00:00.123';
-- A window relative to now(): the bound is computed once per scan.
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders WHERE snowflake_timestamp(id) >= now() - interval '1 day';
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders
WHERE snowflake_timestamp(id) >= date_trunc('day', now()) - interval '1 day'
  AND snowflake_timestamp(id) < date_trunc('day', now());
-- A date or a timestamp without time zone: PostgreSQL compares them in the
-- session's time zone, and so do the bound functions for them, when the
-- statement runs.
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders WHERE snowflake_timestamp(id) >= current_date - 1;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders
WHERE snowflake_timestamp(id) >= '2026-02-10'::date AND snowflake_timestamp(id) < localtimestamp;
-- The estimate is the one of the same bounds written by hand.
CREATE FUNCTION plan_rows(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
    RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
END $$;
SELECT plan_rows($$SELECT * FROM tp_orders
                   WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11'$$)
     = plan_rows($$SELECT * FROM tp_orders
                   WHERE id BETWEEN snowflake_min_id('2026-02-10') AND snowflake_max_id('2026-02-10 23:59:59.999')$$)
       AS same_estimate,
       plan_rows($$SELECT * FROM tp_orders
                   WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11'$$)
         BETWEEN 900 AND 1100 AS estimate_near_1000;

-- What is not rewritten: a condition under OR or NOT, a time that changes
-- while the statement runs (clock_timestamp() is volatile), and anything
-- outside WHERE and JOIN ... ON.
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders
WHERE snowflake_timestamp(id) < '2026-01-02' OR snowflake_timestamp(id) >= '2026-03-01';
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders WHERE snowflake_timestamp(id) >= clock_timestamp() - interval '1 day';
EXPLAIN (COSTS OFF)
SELECT snowflake_timestamp(id) >= '2026-02-10' AS recent FROM tp_orders WHERE id = 0;

-- snowflake.time_predicates = off: the plain filter, as before.
SET snowflake.time_predicates = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders
WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11';
SELECT count(*) FROM tp_orders
WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11';
RESET snowflake.time_predicates;

-- Subqueries, CTEs, views, joins and DELETE: every query level.
CREATE VIEW tp_recent AS
SELECT * FROM tp_orders WHERE snowflake_timestamp(id) >= '2026-02-28';
EXPLAIN (COSTS OFF) SELECT count(*) FROM tp_recent;
EXPLAIN (COSTS OFF)
WITH w AS MATERIALIZED (SELECT id FROM tp_orders WHERE snowflake_timestamp(id) > '2026-02-28 23:00')
SELECT count(*) FROM w
WHERE EXISTS (SELECT 1 FROM tp_orders o WHERE o.id = w.id AND snowflake_timestamp(o.id) < '2026-03-01');
EXPLAIN (COSTS OFF)
SELECT count(*) FROM (VALUES (timestamptz '2026-02-10 12:00'), ('2026-02-20 12:00')) v(t)
JOIN tp_orders o ON snowflake_timestamp(o.id) >= v.t AND snowflake_timestamp(o.id) < v.t + interval '1 minute';
SELECT count(*) FROM (VALUES (timestamptz '2026-02-10 12:00'), ('2026-02-20 12:00')) v(t)
JOIN tp_orders o ON snowflake_timestamp(o.id) >= v.t AND snowflake_timestamp(o.id) < v.t + interval '1 minute';
BEGIN;
EXPLAIN (COSTS OFF) DELETE FROM tp_orders WHERE snowflake_timestamp(id) < '2026-01-02';
DELETE FROM tp_orders WHERE snowflake_timestamp(id) < '2026-01-02';
ROLLBACK;

-- A prepared statement: a custom plan folds the parameter into constant
-- bounds, the generic plan computes them once per execution.
PREPARE tp_window(timestamptz, timestamptz) AS
SELECT count(*) FROM tp_orders WHERE snowflake_timestamp(id) >= $1 AND snowflake_timestamp(id) < $2;
SET plan_cache_mode = force_custom_plan;
EXPLAIN (COSTS OFF) EXECUTE tp_window('2026-02-10', '2026-02-11');
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE tp_window('2026-02-10', '2026-02-11');
EXECUTE tp_window('2026-02-10', '2026-02-11');
RESET plan_cache_mode;
DEALLOCATE tp_window;

-- ------------------------------------------------- id <@ tstzrange: plans
-- A constant range becomes the bounds themselves (and the upper bound
-- shows as the first id of the next millisecond when the range excludes it).
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders WHERE id <@ tstzrange('2026-02-10', '2026-02-11');
SELECT count(*) FROM tp_orders WHERE id <@ tstzrange('2026-02-10', '2026-02-11');
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders WHERE id <@ tstzrange('2026-02-10', '2026-02-11', '(]');
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders WHERE id <@ tstzrange('2026-02-10', NULL);
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders WHERE id <@ 'empty'::tstzrange;
-- A stable range: an index condition on the primary key, from the
-- index's own operators.
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders WHERE id <@ tstzrange(now() - interval '1 day', now());
PREPARE tp_within(tstzrange) AS SELECT count(*) FROM tp_orders WHERE id <@ $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE tp_within('[2026-02-10, 2026-02-11)');
EXECUTE tp_within('[2026-02-10, 2026-02-11)');
RESET plan_cache_mode;
DEALLOCATE tp_within;
-- The estimate of a stable range is the one of the bounds written by hand
-- (the text->timestamptz cast is stable, so the range is not a constant).
SELECT plan_rows($$SELECT * FROM tp_orders
                   WHERE id <@ tstzrange('2026-02-10'::text::timestamptz, '2026-02-11'::text::timestamptz, '[]')$$)
     = plan_rows($$SELECT * FROM tp_orders
                   WHERE id >= snowflake_min_id('2026-02-10') AND id <= snowflake_max_id('2026-02-11')$$)
       AS same_estimate;
-- Called as a function, snowflake_made_within gets the same treatment.
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders WHERE snowflake_made_within(id, tstzrange(now() - interval '1 day', now()));
-- Where the value is needed (not a WHERE condition), the operator is
-- evaluated: NULL for a NULL id, false for a negative id (never made).
SELECT v AS id, v <@ tstzrange('2026-02-10', '2026-02-11') AS made_within,
       v <@ tstzrange(NULL, NULL) AS made_ever,
       v <@ 'empty'::tstzrange AS made_in_empty
FROM (VALUES (NULL::bigint), (-1), (0), (snowflake_min_id('2026-02-10'))) x(v);

-- --------------------------------------------------------------- BRIN
CREATE TABLE tp_events (id bigint NOT NULL, note text) WITH (autovacuum_enabled = off);
INSERT INTO tp_events SELECT id, note FROM tp_orders ORDER BY id;
CREATE INDEX tp_events_brin ON tp_events USING brin (id) WITH (pages_per_range = 4);
VACUUM ANALYZE tp_events;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_events
WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11';
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_events WHERE id <@ tstzrange('2026-02-10', '2026-02-11');
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_events WHERE snowflake_timestamp(id) >= now() - interval '1 day';
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_events WHERE id <@ tstzrange(now() - interval '1 day', now());
SELECT count(*) FROM tp_events
WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11';
SELECT count(*) FROM tp_events WHERE id <@ tstzrange('2026-02-10', '2026-02-11');

-- -------------------------------------------------------- partitions
-- One partition per month: a constant window touches one partition, chosen
-- when planning.
CREATE TABLE tp_parted (id bigint NOT NULL, note text, PRIMARY KEY (id)) PARTITION BY RANGE (id);
SELECT count(*) AS partitions
FROM snowflake_create_partitions('tp_parted', '2026-01-01+00', '2026-04-01+00', '1 month');
DO $$
DECLARE p regclass;
BEGIN
    FOR p IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'tp_parted'::regclass LOOP
        EXECUTE format('ALTER TABLE %s SET (autovacuum_enabled = off)', p);
    END LOOP;
END $$;
INSERT INTO tp_parted SELECT * FROM tp_orders;
VACUUM ANALYZE tp_parted;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_parted
WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11';
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_parted WHERE id <@ tstzrange('2026-02-10', '2026-02-11');
SELECT count(*) FROM tp_parted
WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11';
-- A window that is not a constant when planning (a parameter of a generic
-- plan, or a stable expression): the executor prunes when it starts.
PREPARE tp_parted_window(timestamptz, timestamptz) AS
SELECT count(*) FROM tp_parted WHERE snowflake_timestamp(id) >= $1 AND snowflake_timestamp(id) < $2;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE tp_parted_window('2026-02-10', '2026-02-11');
EXECUTE tp_parted_window('2026-02-10', '2026-02-11');
RESET plan_cache_mode;
DEALLOCATE tp_parted_window;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_parted WHERE snowflake_timestamp(id) >= '2026-03-31 12:00'::text::timestamptz;

-- ----------------------------------------------- the IMMUTABLE form
-- snowflake_timestamp(id, epoch_ms, datacenter_bits, worker_bits,
-- sequence_bits), here for ids of another layout: epoch 2024-01-01, 3/3/16.
CREATE TABLE tp_other (id bigint PRIMARY KEY) WITH (autovacuum_enabled = off);
INSERT INTO tp_other
SELECT snowflake_min_id(timestamptz '2026-01-01+00' + g * interval '86.4 s', 1704067200000, 3, 3, 16) + g % 65536
FROM generate_series(0, 59999) g;
VACUUM ANALYZE tp_other;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_other
WHERE snowflake_timestamp(id, 1704067200000, 3, 3, 16) >= '2026-02-10'
  AND snowflake_timestamp(id, 1704067200000, 3, 3, 16) < '2026-02-11';
SELECT count(*) FROM tp_other
WHERE snowflake_timestamp(id, 1704067200000, 3, 3, 16) >= '2026-02-10'
  AND snowflake_timestamp(id, 1704067200000, 3, 3, 16) < '2026-02-11';
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_other
WHERE snowflake_timestamp(id, 1704067200000, 3, 3, 16) >= now() - interval '1 day';
-- An invalid layout is left alone: it fails as it would without the rewrite,
-- only when a row is read.
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_other WHERE snowflake_timestamp(id, 1704067200000, 30, 3, 16) >= '2026-02-10';

-- ------------------------------------------------------ exactness
-- Rows at the edges of milliseconds: the first, second and last id of the
-- millisecond before, at and after each of these times, and of the epoch's
-- and the lifetime's last millisecond.  Then every form against the plain
-- filter, for times around those edges (to the microsecond), infinities,
-- times before the epoch and past the lifetime, and NULL, with the index
-- and without it.
CREATE TABLE tp_edges (id bigint PRIMARY KEY) WITH (autovacuum_enabled = off);
INSERT INTO tp_edges
SELECT DISTINCT b.id
FROM unnest(ARRAY[timestamptz '2026-02-10 12:00:00+00', '2026-02-10 12:00:00.123+00',
                  '2026-02-10 12:00:01+00', '2010-11-04 01:42:54.658+00',
                  '2080-07-10 17:30:30.207+00']) m,
     generate_series(-1, 1) d,
     LATERAL (SELECT m + d * interval '1 ms' AS t) s,
     LATERAL (VALUES (snowflake_min_id(t)), (snowflake_min_id(t) + 1), (snowflake_max_id(t))) b(id)
WHERE t >= '2010-11-04 01:42:54.657+00' AND t <= '2080-07-10 17:30:30.208+00';
ANALYZE tp_edges;
SELECT count(*) AS edge_rows, min(id) AS first_id, max(id) AS last_id FROM tp_edges;

CREATE TABLE tp_times (x timestamptz) WITH (autovacuum_enabled = off);
INSERT INTO tp_times
SELECT m + d * interval '1 microsecond'
FROM unnest(ARRAY[timestamptz '2026-02-10 12:00:00+00', '2026-02-10 12:00:00.123+00',
                  '2010-11-04 01:42:54.657+00', '2080-07-10 17:30:30.208+00']) m,
     unnest(ARRAY[-1001, -1000, -1, 0, 1, 500, 999, 1000, 1001]) d
UNION ALL
VALUES (timestamptz '-infinity'), ('infinity'), ('1999-12-31 23:59:59.9995+00'), ('2200-01-01+00'), (NULL);

-- Runs a query with the rewrite and without it (the oracle: the plain
-- filter, or the query given as the oracle), both with the index and
-- without; returns the rows, or raises if any run differs.
CREATE FUNCTION tp_same(query text, oracle_query text DEFAULT NULL) RETURNS bigint[] LANGUAGE plpgsql AS $$
DECLARE
    oracle bigint[];
    got bigint[];
    mode text;
BEGIN
    PERFORM set_config('snowflake.time_predicates', 'off', true);
    EXECUTE coalesce(oracle_query, query) INTO oracle;
    PERFORM set_config('snowflake.time_predicates', 'on', true);
    FOREACH mode IN ARRAY ARRAY['index', 'seqscan'] LOOP
        PERFORM set_config('enable_seqscan', (mode = 'seqscan')::text, true);
        PERFORM set_config('enable_indexscan', (mode = 'index')::text, true);
        PERFORM set_config('enable_indexonlyscan', (mode = 'index')::text, true);
        PERFORM set_config('enable_bitmapscan', (mode = 'index')::text, true);
        EXECUTE query INTO got;
        IF got IS DISTINCT FROM oracle THEN
            RAISE EXCEPTION 'differs (%): %', mode, query
                USING DETAIL = format('oracle %s, got %s', oracle, got);
        END IF;
    END LOOP;
    PERFORM set_config('enable_seqscan', 'on', true);
    PERFORM set_config('enable_indexscan', 'on', true);
    PERFORM set_config('enable_indexonlyscan', 'on', true);
    PERFORM set_config('enable_bitmapscan', 'on', true);
    RETURN oracle;
END $$;
-- Whether the rewrite (or the operator's simplification) took the time
-- function out of the plan.
CREATE FUNCTION tp_rewritten(query text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    line text;
    seen boolean := false;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
        seen := seen OR line ~ 'snowflake_timestamp|snowflake_made_within|<@';
    END LOOP;
    RETURN NOT seen;
END $$;

-- The natural forms, STABLE and IMMUTABLE, every comparison.
SELECT op, count(*) AS cases, count(*) FILTER (WHERE tp_rewritten(q)) AS rewritten,
       sum(coalesce(cardinality(tp_same(q)), 0)) AS rows_returned
FROM tp_times,
     unnest(ARRAY['snowflake_timestamp(id)',
                  'snowflake_timestamp(id, 1288834974657, 5, 5, 12)']) form,
     unnest(ARRAY['>=', '>', '<=', '<', '=']) op,
     LATERAL (SELECT format('SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE %s %s %L::timestamptz',
                            form, op, x) AS q) qq
GROUP BY op ORDER BY op;
-- BETWEEN.
SELECT count(*) AS cases, count(*) FILTER (WHERE tp_rewritten(q)) AS rewritten,
       sum(coalesce(cardinality(tp_same(q)), 0)) AS rows_returned
FROM tp_times a, tp_times b,
     LATERAL (SELECT format('SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE snowflake_timestamp(id) BETWEEN %L AND %L',
                            a.x, b.x) AS q) qq
WHERE a.x <= b.x;
-- id <@ every kind of range: bounds from the times above (NULL is an
-- unbounded side), every combination of inclusive and exclusive, and the
-- empty range, against timestamp <@ range on the plain filter.
SELECT count(*) AS cases, count(*) FILTER (WHERE tp_rewritten(q)) AS rewritten,
       sum(coalesce(cardinality(tp_same(q, o)), 0)) AS rows_returned
FROM (SELECT format('tstzrange(%L, %L, %L)', a.x, b.x, bounds) AS r
      FROM tp_times a, tp_times b, unnest(ARRAY['[)', '(]', '[]', '()']) bounds
      WHERE a.x IS NULL OR b.x IS NULL OR a.x <= b.x
      UNION ALL VALUES ('''empty''::tstzrange')) rr,
     LATERAL (SELECT format('SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE id <@ %s', r) AS q,
                     format('SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE snowflake_timestamp(id) <@ %s', r) AS o) qq;
-- The same with ranges that are not constants when planning (index
-- conditions, or the operator evaluated on each row).
SELECT count(*) AS cases, count(*) FILTER (WHERE NOT tp_rewritten(q)) AS kept_operator,
       sum(coalesce(cardinality(tp_same(q, o)), 0)) AS rows_returned
FROM (SELECT format('tstzrange(%L::text::timestamptz, %L::text::timestamptz, %L)', a.x, b.x, bounds) AS r
      FROM tp_times a, tp_times b, unnest(ARRAY['[)', '(]', '[]', '()']) bounds
      WHERE (a.x IS NULL OR b.x IS NULL OR a.x <= b.x)
        AND (a.x IS NULL OR NOT isfinite(a.x) OR a.x BETWEEN '2026-02-10 11:59:59' AND '2026-02-10 12:00:01')
        AND (b.x IS NULL OR NOT isfinite(b.x) OR b.x BETWEEN '2026-02-10 11:59:59' AND '2026-02-10 12:00:01')) rr,
     LATERAL (SELECT format('SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE id <@ %s', r) AS q,
                     format('SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE snowflake_timestamp(id) <@ %s', r) AS o) qq;

-- Dates and timestamps without time zone, in a session 12 hours behind UTC
-- (so that midnight of 2026-02-10 is one of the edges, 12:00 UTC), with the
-- infinities and dates beyond the range of timestamptz.
SET TimeZone = 'Etc/GMT+12';
CREATE TABLE tp_local (x timestamp) WITH (autovacuum_enabled = off);
INSERT INTO tp_local
SELECT m + d * interval '1 microsecond'
FROM unnest(ARRAY[timestamp '2026-02-10 00:00:00', '2026-02-10 00:00:00.123']) m,
     unnest(ARRAY[-1001, -1000, -1, 0, 1, 500, 999, 1000, 1001]) d
UNION ALL
VALUES (timestamp '-infinity'), ('infinity'), (NULL);
SELECT form, count(*) AS cases, count(*) FILTER (WHERE tp_rewritten(q)) AS rewritten,
       sum(coalesce(cardinality(tp_same(q)), 0)) AS rows_returned
FROM (SELECT 'timestamp' AS form, x::text AS v, 'timestamp' AS t FROM tp_local
      UNION ALL
      SELECT 'date', v, 'date'
      FROM unnest(ARRAY['2026-02-09', '2026-02-10', '2026-02-11', '-infinity', 'infinity',
                        '5000000-01-01', '4713-11-24 BC']) v) c,
     unnest(ARRAY['>=', '>', '<=', '<', '=']) op,
     LATERAL (SELECT format('SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE snowflake_timestamp(id) %s %L::%s',
                            op, v, t) AS q) qq
GROUP BY form ORDER BY form;
-- A generic plan of a date keeps following the session's time zone.
PREPARE tp_since_date(date) AS
SELECT count(*) FROM tp_edges WHERE snowflake_timestamp(id) >= $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE tp_since_date('2026-02-10');
SELECT tz, (SELECT cardinality(ids) FROM (SELECT set_config('TimeZone', tz, false)) s,
            LATERAL (SELECT tp_same(format('SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE snowflake_timestamp(id) >= %L::date',
                                           '2026-02-10')) AS ids) t) AS rows
FROM unnest(ARRAY['Etc/GMT+12', 'UTC']) tz;
-- The same plan, run in both zones: the rows of the plain filter in each.
SET TimeZone = 'Etc/GMT+12';
EXECUTE tp_since_date('2026-02-10');
SET TimeZone = 'UTC';
EXECUTE tp_since_date('2026-02-10');
RESET plan_cache_mode;
DEALLOCATE tp_since_date;

-- A generic plan computes the bounds when it runs: the same rows.
CREATE FUNCTION tp_generic(op text, x timestamptz) RETURNS bigint[] LANGUAGE plpgsql AS $$
BEGIN
    CASE op
    WHEN '>=' THEN RETURN (SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE snowflake_timestamp(id) >= x);
    WHEN '>' THEN RETURN (SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE snowflake_timestamp(id) > x);
    WHEN '<=' THEN RETURN (SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE snowflake_timestamp(id) <= x);
    WHEN '<' THEN RETURN (SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE snowflake_timestamp(id) < x);
    WHEN '=' THEN RETURN (SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE snowflake_timestamp(id) = x);
    ELSE RETURN (SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE id <@ tstzrange(x, NULL, op));
    END CASE;
END $$;
SET plan_cache_mode = force_generic_plan;
SELECT count(*) AS cases,
       count(*) FILTER (WHERE tp_generic(op, x) IS NOT DISTINCT FROM tp_same(format(
           'SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE snowflake_timestamp(id) %s %L::timestamptz', op, x)))
         AS same_as_plain_filter
FROM tp_times, unnest(ARRAY['>=', '>', '<=', '<', '=']) op;
SELECT count(*) AS cases,
       count(*) FILTER (WHERE tp_generic(b, x) IS NOT DISTINCT FROM tp_same(format(
           'SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE snowflake_timestamp(id) <@ tstzrange(%L, NULL, %L)', x, b)))
         AS same_as_plain_filter
FROM tp_times, unnest(ARRAY['[)', '()']) b;
RESET plan_cache_mode;

DROP FUNCTION tp_generic(text, timestamptz);
DROP FUNCTION tp_same(text, text);
DROP FUNCTION tp_rewritten(text);
DROP FUNCTION plan_rows(text);
DROP VIEW tp_recent;
DROP TABLE tp_orders, tp_events, tp_parted, tp_other, tp_edges, tp_times, tp_local;

-- The hook follows CREATE, DROP and ALTER EXTENSION in the session that runs
-- them: nothing is rewritten in a database without the extension (or with
-- 1.3, before the bound functions), and a same-named function of the
-- user's is never the extension's.
SELECT current_database() AS regress_db \gset
CREATE DATABASE tp_lifecycle;
\c tp_lifecycle
SET max_parallel_workers_per_gather = 0;
CREATE TABLE t (id bigint PRIMARY KEY);
CREATE FUNCTION public.snowflake_timestamp(bigint) RETURNS timestamptz LANGUAGE plpgsql STABLE
    AS $$ BEGIN RETURN '2000-01-01+00'; END $$;
EXPLAIN (COSTS OFF) SELECT * FROM t WHERE public.snowflake_timestamp(id) >= '2026-01-01+00';
CREATE SCHEMA ext;
CREATE EXTENSION snowflake SCHEMA ext VERSION '1.3';
EXPLAIN (COSTS OFF) SELECT * FROM t WHERE ext.snowflake_timestamp(id) >= '2026-01-01+00';
ALTER EXTENSION snowflake UPDATE;
EXPLAIN (COSTS OFF) SELECT * FROM t WHERE ext.snowflake_timestamp(id) >= '2026-01-01+00';
EXPLAIN (COSTS OFF) SELECT * FROM t WHERE public.snowflake_timestamp(id) >= '2026-01-01+00';
DROP EXTENSION snowflake;
EXPLAIN (COSTS OFF) SELECT * FROM t WHERE public.snowflake_timestamp(id) >= '2026-01-01+00';
CREATE EXTENSION snowflake SCHEMA ext;
EXPLAIN (COSTS OFF) SELECT * FROM t WHERE ext.snowflake_timestamp(id) >= '2026-01-01+00';
\c :regress_db
DROP DATABASE tp_lifecycle;

-- A negative id is made at no time (the plain filter raises an error for
-- it): an upper bound alone does not let it pass as made before x, and
-- neither does the operator with an open lower bound.
CREATE TABLE tp_negative (id bigint PRIMARY KEY);
INSERT INTO tp_negative VALUES (-5), (snowflake_min_id('2026-01-01+00'));
SELECT id FROM tp_negative WHERE snowflake_timestamp(id) < '2027-01-01+00';
SELECT id FROM tp_negative WHERE snowflake_timestamp(id) <= '2027-01-01+00';
SELECT id FROM tp_negative WHERE id <@ tstzrange(NULL, '2027-01-01+00');
SET snowflake.time_predicates = off;
SELECT id FROM tp_negative WHERE snowflake_timestamp(id) < '2027-01-01+00';
RESET snowflake.time_predicates;
DROP TABLE tp_negative;
