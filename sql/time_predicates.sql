-- Time predicates on snowflake ids use the id's index and prune partitions:
-- for snowflake_timestamp(id) >= x and the other natural forms, the planner
-- is offered index paths and partition pruning from the id bounds the
-- condition implies (the planner hooks, snowflake.time_predicates), and
-- the condition itself stays in the plan, as a filter on the rows the index
-- returns; id <@ tstzrange is an index condition through the operator's
-- support function.  Every form returns exactly the rows of the plain
-- snowflake_timestamp(id) filter, which is the oracle here, with the same
-- row estimate.
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
-- A constant window: the bounds are constants, computed when planning; the
-- primary key returns the rows between them, and each is checked against
-- the condition (Filter).
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
-- The rows expected are the condition's own estimate, as without the
-- extension (the implied bounds are not counted a second time); the index
-- path is costed from the bounds' selectivity.
CREATE FUNCTION plan_rows(query text, predicates boolean DEFAULT true) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    plan json;
BEGIN
    PERFORM set_config('snowflake.time_predicates', predicates::text, true);
    EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
    PERFORM set_config('snowflake.time_predicates', 'on', true);
    RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
END $$;
SELECT q, plan_rows(q) = plan_rows(q, false) AS same_estimate
FROM unnest(ARRAY[
    $$SELECT * FROM tp_orders WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11'$$,
    $$SELECT * FROM tp_orders WHERE snowflake_timestamp(id) >= now() - interval '1 day'$$,
    $$SELECT * FROM tp_orders WHERE snowflake_timestamp(id) = '2026-02-10 12:00'$$,
    $$SELECT * FROM tp_orders WHERE id <@ tstzrange('2026-02-10', '2026-02-11')$$]) q;

-- What implies no bounds: a condition under OR or NOT, a time that changes
-- while the statement runs (clock_timestamp() is volatile), and anything
-- that is not a condition.
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders
WHERE snowflake_timestamp(id) < '2026-01-02' OR snowflake_timestamp(id) >= '2026-03-01';
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders WHERE snowflake_timestamp(id) >= clock_timestamp() - interval '1 day';
EXPLAIN (COSTS OFF)
SELECT snowflake_timestamp(id) >= '2026-02-10' AS recent FROM tp_orders WHERE id = 0;

-- snowflake.time_predicates = off: the plain filter, as without the
-- extension.
SET snowflake.time_predicates = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders
WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11';
SELECT count(*) FROM tp_orders
WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11';
RESET snowflake.time_predicates;

-- Subqueries, CTEs, views, joins and DELETE: every query level.  A join
-- condition on the time is a parameterized index path of the id (a nested
-- loop looks up each outer row's window), chosen only where it is cheaper.
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

-- A prepared statement: a custom plan computes constant bounds from the
-- parameters, the generic plan computes them once per execution.
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
-- A constant range is an index condition on constant bounds (the upper
-- bound shows as the first id of the next millisecond when the range
-- excludes it); exact, so the index answers the operator.
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders WHERE id <@ tstzrange('2026-02-10', '2026-02-11');
SELECT count(*) FROM tp_orders WHERE id <@ tstzrange('2026-02-10', '2026-02-11');
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders WHERE id <@ tstzrange('2026-02-10', '2026-02-11', '(]');
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders WHERE id <@ tstzrange('2026-02-10', NULL);
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders WHERE id <@ 'empty'::tstzrange;
-- A stable range: an index condition computed once per scan, from the
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
-- The operator prunes the same way: a stable range, a range of another
-- century (relative to now(), so none of these partitions), a parameter of
-- a generic plan.
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_parted WHERE id <@ tstzrange('2026-02-10'::text::timestamptz, '2026-02-11'::text::timestamptz);
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_parted WHERE id <@ tstzrange(now() - interval '100 years', now() - interval '90 years');
PREPARE tp_parted_within(tstzrange) AS SELECT count(*) FROM tp_parted WHERE id <@ $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE tp_parted_within('[2026-02-10, 2026-02-11)');
EXECUTE tp_parted_within('[2026-02-10, 2026-02-11)');
RESET plan_cache_mode;
DEALLOCATE tp_parted_within;
-- Two levels: February is itself partitioned (by hash of the id, which no
-- window can prune); the other months are plain partitions.
CREATE TABLE tp_multi (id bigint NOT NULL, note text) PARTITION BY RANGE (id);
CREATE TABLE tp_multi_01 PARTITION OF tp_multi
    FOR VALUES FROM (snowflake_min_id('2026-01-01')) TO (snowflake_min_id('2026-02-01'));
CREATE TABLE tp_multi_02 PARTITION OF tp_multi
    FOR VALUES FROM (snowflake_min_id('2026-02-01')) TO (snowflake_min_id('2026-03-01'))
    PARTITION BY HASH (id);
CREATE TABLE tp_multi_02_a PARTITION OF tp_multi_02 FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE tp_multi_02_b PARTITION OF tp_multi_02 FOR VALUES WITH (MODULUS 2, REMAINDER 1);
CREATE TABLE tp_multi_03 PARTITION OF tp_multi
    FOR VALUES FROM (snowflake_min_id('2026-03-01')) TO (snowflake_min_id('2026-04-01'));
CREATE INDEX ON tp_multi (id);
INSERT INTO tp_multi SELECT * FROM tp_orders;
ANALYZE tp_multi;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_multi
WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11';
SELECT count(*) FROM tp_multi
WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11';
PREPARE tp_multi_window(timestamptz, timestamptz) AS
SELECT count(*) FROM tp_multi WHERE snowflake_timestamp(id) >= $1 AND snowflake_timestamp(id) < $2;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE tp_multi_window('2026-01-10', '2026-01-11');
EXECUTE tp_multi_window('2026-01-10', '2026-01-11');
RESET plan_cache_mode;
DEALLOCATE tp_multi_window;
DROP TABLE tp_multi;
-- DELETE and UPDATE prune the same way (the pruning line of the DELETE's
-- plan: PostgreSQL 18 no longer lists the pruned partitions' targets).
CREATE FUNCTION tp_explain(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY EXECUTE 'EXPLAIN (COSTS OFF) ' || query;
END $$;
BEGIN;
SELECT trim(line) AS pruning
FROM tp_explain($$DELETE FROM tp_parted WHERE snowflake_timestamp(id) < now() - interval '100 years'$$) line
WHERE line ~ 'Subplans Removed';
EXPLAIN (COSTS OFF)
UPDATE tp_parted SET note = note WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-10 00:01';
ROLLBACK;
-- A window of no id at all (before the epoch): no partition (PostgreSQL 19
-- adds a line naming the scan the empty result replaces).
SELECT line AS "QUERY PLAN"
FROM tp_explain($$SELECT count(*) FROM tp_parted WHERE snowflake_timestamp(id) < '2001-01-01'$$) line
WHERE line !~ '^ *Replaces: ';
DROP FUNCTION tp_explain(text);
-- snowflake.time_predicates = off: every partition, as without the extension.
SET snowflake.time_predicates = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_parted
WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11';
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_parted WHERE id <@ tstzrange('2026-02-10'::text::timestamptz, '2026-02-11'::text::timestamptz);
RESET snowflake.time_predicates;

-- Plan-time pruning reads the window where PostgreSQL distributes it to the
-- table, before the partitions are expanded: a WHERE above inner joins,
-- the ON of the outer join whose nullable side the table is, each branch
-- of a UNION ALL, each level of a table partitioned by time twice.  Not
-- the ON of an outer join whose preserved side it is, nor a FULL join's
-- ON: those rows are kept.  Rows as the plain filter's.
CREATE FUNCTION tp_on_off(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r_on text;
    r_off text;
BEGIN
    EXECUTE query INTO r_on;
    PERFORM set_config('snowflake.time_predicates', 'off', true);
    EXECUTE query INTO r_off;
    PERFORM set_config('snowflake.time_predicates', 'on', true);
    RETURN r_on || CASE WHEN r_on IS NOT DISTINCT FROM r_off THEN ' (same as off)' ELSE ' <> ' || r_off END;
END $$;
CREATE TABLE tp_marks (t timestamptz);
INSERT INTO tp_marks VALUES ('2026-02-10 12:00+00'), ('2026-03-10 12:00+00');
ANALYZE tp_marks;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_marks m JOIN tp_parted p ON p.note <> m.t::text
WHERE snowflake_timestamp(p.id) >= '2026-02-10' AND snowflake_timestamp(p.id) < '2026-02-11';
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_marks m
LEFT JOIN tp_parted p ON snowflake_timestamp(p.id) >= '2026-02-10' AND snowflake_timestamp(p.id) < '2026-02-11';
SELECT q, tp_on_off(q) FROM (VALUES
    ($$SELECT count(*) FROM tp_marks m JOIN tp_parted p ON p.note <> m.t::text
       WHERE snowflake_timestamp(p.id) >= '2026-02-10' AND snowflake_timestamp(p.id) < '2026-02-11'$$),
    ($$SELECT count(*) FROM tp_marks m
       LEFT JOIN tp_parted p ON snowflake_timestamp(p.id) >= '2026-02-10' AND snowflake_timestamp(p.id) < '2026-02-11'$$),
    ($$SELECT count(*) || ' rows, ' || count(m.t) || ' matched' FROM tp_parted p
       LEFT JOIN tp_marks m ON snowflake_timestamp(p.id) >= '2026-02-10' AND snowflake_timestamp(p.id) < '2026-02-11'$$),
    ($$SELECT count(*) || ' rows, ' || count(m.t) || ' marks, ' || count(p.id) || ' ids' FROM tp_marks m
       FULL JOIN tp_parted p ON p.note = m.t::text
                             AND snowflake_timestamp(p.id) >= '2026-02-10' AND snowflake_timestamp(p.id) < '2026-02-11'$$),
    ($$SELECT count(*) FROM (SELECT id FROM tp_parted UNION ALL SELECT id FROM tp_parted) u
       WHERE snowflake_timestamp(u.id) >= '2026-02-10' AND snowflake_timestamp(u.id) < '2026-02-11'$$)) v(q);
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_parted p
LEFT JOIN tp_marks m ON snowflake_timestamp(p.id) >= '2026-02-10' AND snowflake_timestamp(p.id) < '2026-02-11';
EXPLAIN (COSTS OFF)
SELECT count(*) FROM (SELECT id FROM tp_parted UNION ALL SELECT id FROM tp_parted) u
WHERE snowflake_timestamp(u.id) >= '2026-02-10' AND snowflake_timestamp(u.id) < '2026-02-11';
CREATE TABLE tp_two (id bigint NOT NULL) PARTITION BY RANGE (id);
CREATE TABLE tp_two_2025_12 PARTITION OF tp_two
    FOR VALUES FROM (snowflake_min_id('2025-12-01')) TO (snowflake_min_id('2026-01-01'));
CREATE TABLE tp_two_2026_01 PARTITION OF tp_two
    FOR VALUES FROM (snowflake_min_id('2026-01-01')) TO (snowflake_min_id('2026-02-01'))
    PARTITION BY RANGE (id);
SELECT count(*) AS days FROM snowflake_create_partitions('tp_two_2026_01', '2026-01-01+00', '2026-02-01+00', '1 day');
CREATE TABLE tp_two_2026_02 PARTITION OF tp_two
    FOR VALUES FROM (snowflake_min_id('2026-02-01')) TO (snowflake_min_id('2026-03-01'));
INSERT INTO tp_two SELECT id FROM tp_orders WHERE id < snowflake_min_id('2026-03-01');
ANALYZE tp_two;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_two WHERE snowflake_timestamp(id) >= '2026-01-10' AND snowflake_timestamp(id) < '2026-01-11';
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_two WHERE snowflake_timestamp(id) >= '2025-12-31 12:00' AND snowflake_timestamp(id) < '2026-01-01 12:00';
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_two WHERE snowflake_timestamp(id) >= '2026-01-31 12:00' AND snowflake_timestamp(id) < '2026-02-01 12:00';
SELECT q, tp_on_off(q) FROM (VALUES
    ($$SELECT count(*) FROM tp_two WHERE snowflake_timestamp(id) >= '2026-01-10' AND snowflake_timestamp(id) < '2026-01-11'$$),
    ($$SELECT count(*) FROM tp_two WHERE snowflake_timestamp(id) >= '2025-12-31 12:00' AND snowflake_timestamp(id) < '2026-01-01 12:00'$$),
    ($$SELECT count(*) FROM tp_two WHERE snowflake_timestamp(id) >= '2026-01-31 12:00' AND snowflake_timestamp(id) < '2026-02-01 12:00'$$),
    ($$SELECT count(*) FROM tp_two WHERE id <@ tstzrange('2026-01-31 12:00', '2026-02-01 12:00')$$)) v(q);
DROP TABLE tp_two, tp_marks;
DROP FUNCTION tp_on_off(text);

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
-- An invalid layout implies nothing: it fails as it would without the
-- extension, only when a row is read.
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_other WHERE snowflake_timestamp(id, 1704067200000, 30, 3, 16) >= '2026-02-10';

-- ------------------------------------ what stays as without the extension
-- Whether a query's plan is the one it has without the planner-side code.
CREATE FUNCTION tp_same_plan(query text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    plan_on text := '';
    plan_off text := '';
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN ' || query LOOP
        plan_on := plan_on || line || E'\n';
    END LOOP;
    PERFORM set_config('snowflake.time_predicates', 'off', true);
    FOR line IN EXECUTE 'EXPLAIN ' || query LOOP
        plan_off := plan_off || line || E'\n';
    END LOOP;
    PERFORM set_config('snowflake.time_predicates', 'on', true);
    RETURN plan_on = plan_off;
END $$;
-- An index on the time itself (the IMMUTABLE form) is used as without the
-- extension: the condition it matches stays in the query.  So does a
-- partial index whose predicate is a time condition.
CREATE TABLE tp_expr (id bigint NOT NULL, note text) WITH (autovacuum_enabled = off);
INSERT INTO tp_expr SELECT id, note FROM tp_orders;
CREATE INDEX tp_expr_time ON tp_expr (snowflake_timestamp(id, 1288834974657, 5, 5, 12));
CREATE INDEX tp_expr_recent ON tp_expr (note)
    WHERE snowflake_timestamp(id, 1288834974657, 5, 5, 12) >= '2026-02-28';
VACUUM ANALYZE tp_expr;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_expr
WHERE snowflake_timestamp(id, 1288834974657, 5, 5, 12) >= '2026-02-10'
  AND snowflake_timestamp(id, 1288834974657, 5, 5, 12) < '2026-02-11';
SELECT tp_same_plan($$SELECT count(*) FROM tp_expr
                      WHERE snowflake_timestamp(id, 1288834974657, 5, 5, 12) >= '2026-02-10'
                        AND snowflake_timestamp(id, 1288834974657, 5, 5, 12) < '2026-02-11'$$) AS same_plan;
EXPLAIN (COSTS OFF)
SELECT note FROM tp_expr
WHERE snowflake_timestamp(id, 1288834974657, 5, 5, 12) >= '2026-02-28' AND note = 'order 59000';
-- An equality join on the time: the join condition implies no bounds (it
-- is PostgreSQL's to join), so the plan and its estimate are the ones
-- without the extension: a hash join.
CREATE TABLE tp_marks (t timestamptz) WITH (autovacuum_enabled = off);
INSERT INTO tp_marks SELECT snowflake_timestamp(id) FROM tp_orders WHERE id % 30 = 0;
ANALYZE tp_marks;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tp_orders o JOIN tp_marks m ON snowflake_timestamp(o.id) = m.t;
SELECT tp_same_plan($$SELECT * FROM tp_orders o JOIN tp_marks m ON snowflake_timestamp(o.id) = m.t$$)
         AS same_plan,
       plan_rows($$SELECT * FROM tp_orders o JOIN tp_marks m ON snowflake_timestamp(o.id) = m.t$$)
         = plan_rows($$SELECT * FROM tp_orders o JOIN tp_marks m ON snowflake_timestamp(o.id) = m.t$$, false)
         AS same_estimate;
SELECT count(*) FROM tp_orders o JOIN tp_marks m ON snowflake_timestamp(o.id) = m.t;
-- A range join keeps its estimate too; the plan may use the index.
SELECT plan_rows($$SELECT * FROM tp_marks m JOIN tp_orders o
                   ON snowflake_timestamp(o.id) >= m.t AND snowflake_timestamp(o.id) < m.t + interval '1 s'$$)
     = plan_rows($$SELECT * FROM tp_marks m JOIN tp_orders o
                   ON snowflake_timestamp(o.id) >= m.t AND snowflake_timestamp(o.id) < m.t + interval '1 s'$$, false)
       AS same_estimate;
-- A table without an index on the id: nothing to offer, the same plan.
SELECT tp_same_plan($$SELECT count(*) FROM tp_marks WHERE t >= '2026-02-10'$$) AS same_plan,
       tp_same_plan($$SELECT * FROM tp_expr WHERE snowflake_timestamp(id) >= now() - interval '1 day'$$)
         AS same_plan_no_id_index;
-- The bound functions' constant folding is off too with the setting.
EXPLAIN (COSTS OFF) SELECT * FROM tp_orders WHERE id >= snowflake_min_id_since('2026-02-28 23:59');
SET snowflake.time_predicates = off;
EXPLAIN (COSTS OFF) SELECT * FROM tp_orders WHERE id >= snowflake_min_id_since('2026-02-28 23:59');
EXPLAIN (COSTS OFF) SELECT count(*) FROM tp_orders WHERE id <@ tstzrange('2026-02-10', '2026-02-11');
RESET snowflake.time_predicates;

-- A layout whose lifetime runs past timestamptz's range (epoch 1970, one
-- sequence bit: 2^62 ms, far past the year 294276): the largest id has no
-- timestamptz.  The condition raises the error the plain filter raises
-- whenever that row is read (a lower bound reads it); an upper bound skips
-- it in the index, as an index skips any row its condition excludes.
CREATE TABLE tp_wide (id bigint PRIMARY KEY);
INSERT INTO tp_wide VALUES (9223372036854775807), (snowflake_min_id('2026-06-01+00', 0, 0, 0, 1));
SELECT snowflake_timestamp(9223372036854775807, 0, 0, 0, 1);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT id FROM tp_wide WHERE snowflake_timestamp(id, 0, 0, 0, 1) >= '2026-01-01+00';
SELECT id FROM tp_wide WHERE snowflake_timestamp(id, 0, 0, 0, 1) >= '2026-01-01+00';
SELECT id FROM tp_wide WHERE snowflake_timestamp(id, 0, 0, 0, 1) < '2027-01-01+00';
RESET enable_seqscan;
SET snowflake.time_predicates = off;
SELECT id FROM tp_wide WHERE snowflake_timestamp(id, 0, 0, 0, 1) >= '2026-01-01+00';
SELECT id FROM tp_wide WHERE snowflake_timestamp(id, 0, 0, 0, 1) < '2027-01-01+00';
RESET snowflake.time_predicates;
-- The bound functions never fail on a time under such a layout either.
SELECT snowflake_min_id_since('2026-01-01+00', 0, 0, 0, 1) AS since,
       snowflake_max_id_until('294276-12-31 23:59:59.999999+00', 0, 0, 0, 1) AS until_last_time,
       snowflake_max_id_until('infinity', 0, 0, 0, 1) AS until_ever,
       snowflake_min_id_since('infinity', 0, 0, 0, 1) AS since_infinity;
DROP TABLE tp_wide, tp_expr, tp_marks;
DROP FUNCTION tp_same_plan(text);

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

-- Runs a query with the planner-side code and without it (the oracle: the
-- plain filter, or the query given as the oracle), both with the index and
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
-- Whether the plan, where a sequential scan is the last resort, reads the
-- index between id bounds (an index condition on the id).
CREATE FUNCTION tp_bounded(query text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    line text;
    seen boolean := false;
BEGIN
    PERFORM set_config('enable_seqscan', 'off', true);
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
        seen := seen OR line ~ 'Index Cond: .*\mid [<>]';
    END LOOP;
    PERFORM set_config('enable_seqscan', 'on', true);
    RETURN seen;
END $$;

-- The id bounds the planner derives (the plans above show them), written
-- by hand: for these non-negative ids each is equivalent to its condition,
-- so the index skips no row the condition holds for.
CREATE FUNCTION tp_bound_of(form text, op text, x text, t text) RETURNS text LANGUAGE sql AS $$
    SELECT CASE op
        WHEN '>=' THEN format('id >= snowflake_min_id_since(%s)', v)
        WHEN '>' THEN format('id >= snowflake_min_id_after(%s)', v)
        WHEN '<=' THEN format('id <= snowflake_max_id_until(%s)', v)
        WHEN '<' THEN format('id <= snowflake_max_id_before(%s)', v)
        ELSE format('id >= snowflake_min_id_since(%1$s) AND id <= snowflake_max_id_until(%1$s)', v) END
    FROM (SELECT quote_nullable(x) || '::' || t
                 || CASE WHEN form LIKE '%,%' THEN ', 1288834974657, 5, 5, 12' ELSE '' END AS v) l
$$;
-- The natural forms, STABLE and IMMUTABLE, every comparison: the rows of
-- the plain filter, of the bounds alone, and whether the plans of the
-- narrow windows (1 to 3 rows) read the index between the bounds.
SELECT op, count(*) AS cases, sum(coalesce(cardinality(got), 0)) AS rows_returned,
       sum(coalesce(cardinality(got_by_bounds), 0)) AS rows_by_bounds,
       count(*) FILTER (WHERE cardinality(got) BETWEEN 1 AND 3) AS narrow,
       count(*) FILTER (WHERE cardinality(got) BETWEEN 1 AND 3 AND tp_bounded(q)) AS narrow_bounded
FROM tp_times,
     unnest(ARRAY['snowflake_timestamp(id)',
                  'snowflake_timestamp(id, 1288834974657, 5, 5, 12)']) form,
     unnest(ARRAY['>=', '>', '<=', '<', '=']) op,
     LATERAL (SELECT format('SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE %s %s %L::timestamptz',
                            form, op, x) AS q,
                     format('SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE %s',
                            tp_bound_of(form, op, x::text, 'timestamptz')) AS b) qq,
     LATERAL (SELECT tp_same(q) AS got, tp_same(b, q) AS got_by_bounds) r
GROUP BY op ORDER BY op;
-- BETWEEN.
SELECT count(*) AS cases, sum(coalesce(cardinality(got), 0)) AS rows_returned,
       count(*) FILTER (WHERE cardinality(got) BETWEEN 1 AND 3) AS narrow,
       count(*) FILTER (WHERE cardinality(got) BETWEEN 1 AND 3 AND tp_bounded(q)) AS narrow_bounded
FROM tp_times a, tp_times b,
     LATERAL (SELECT format('SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE snowflake_timestamp(id) BETWEEN %L AND %L',
                            a.x, b.x) AS q) qq,
     LATERAL (SELECT tp_same(q) AS got) r
WHERE a.x <= b.x;
-- id <@ every kind of range: bounds from the times above (NULL is an
-- unbounded side), every combination of inclusive and exclusive, and the
-- empty range, against timestamp <@ range on the plain filter.
SELECT count(*) AS cases, count(*) FILTER (WHERE tp_bounded(q)) AS bounded,
       sum(coalesce(cardinality(tp_same(q, o)), 0)) AS rows_returned
FROM (SELECT format('tstzrange(%L, %L, %L)', a.x, b.x, bounds) AS r
      FROM tp_times a, tp_times b, unnest(ARRAY['[)', '(]', '[]', '()']) bounds
      WHERE a.x IS NULL OR b.x IS NULL OR a.x <= b.x
      UNION ALL VALUES ('''empty''::tstzrange')) rr,
     LATERAL (SELECT format('SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE id <@ %s', r) AS q,
                     format('SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE snowflake_timestamp(id) <@ %s', r) AS o) qq;
-- The same with ranges that are not constants when planning (index
-- conditions computed once per scan).
SELECT count(*) AS cases, count(*) FILTER (WHERE tp_bounded(q)) AS bounded,
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
SELECT form, count(*) AS cases, sum(coalesce(cardinality(got), 0)) AS rows_returned,
       sum(coalesce(cardinality(got_by_bounds), 0)) AS rows_by_bounds,
       count(*) FILTER (WHERE cardinality(got) BETWEEN 1 AND 3) AS narrow,
       count(*) FILTER (WHERE cardinality(got) BETWEEN 1 AND 3 AND tp_bounded(q)) AS narrow_bounded
FROM (SELECT 'timestamp' AS form, x::text AS v, 'timestamp' AS t FROM tp_local
      UNION ALL
      SELECT 'date', v, 'date'
      FROM unnest(ARRAY['2026-02-09', '2026-02-10', '2026-02-11', '-infinity', 'infinity',
                        '5000000-01-01', '4713-11-24 BC']) v) c,
     unnest(ARRAY['>=', '>', '<=', '<', '=']) op,
     LATERAL (SELECT format('SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE snowflake_timestamp(id) %s %L::%s',
                            op, v, t) AS q,
                     format('SELECT array_agg(id ORDER BY id) FROM tp_edges WHERE %s',
                            tp_bound_of('snowflake_timestamp(id)', op, v, t)) AS b) qq,
     LATERAL (SELECT tp_same(q) AS got, tp_same(b, q) AS got_by_bounds) r
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
DROP FUNCTION tp_bounded(text);
DROP FUNCTION tp_bound_of(text, text, text, text);
DROP FUNCTION plan_rows(text, boolean);
DROP VIEW tp_recent;
DROP TABLE tp_orders, tp_events, tp_parted, tp_other, tp_edges, tp_times, tp_local;

-- The hooks know the extension's functions by their C symbol in this
-- library, whatever the version, schema or name: nothing is derived in a
-- database without the extension, the bounds are derived from 1.3's
-- snowflake_timestamp too (they call only built-in functions), and a
-- same-named function of the user's is never the extension's.
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

-- A negative id is made at no time: snowflake_timestamp raises an error
-- for it, with the planner-side code as without it, whenever the row is
-- read; a lower bound skips it in the index (as an index skips any row its
-- condition excludes), and the operator is false for it.
CREATE TABLE tp_negative (id bigint PRIMARY KEY);
INSERT INTO tp_negative VALUES (-5), (snowflake_min_id('2026-01-01+00'));
SELECT id FROM tp_negative WHERE snowflake_timestamp(id) < '2027-01-01+00';
SELECT id FROM tp_negative WHERE snowflake_timestamp(id) >= '2025-01-01+00';
SET enable_seqscan = off;
SELECT id FROM tp_negative WHERE snowflake_timestamp(id) < '2027-01-01+00';
SELECT id FROM tp_negative WHERE snowflake_timestamp(id) >= '2025-01-01+00';
RESET enable_seqscan;
SELECT id FROM tp_negative WHERE id <@ tstzrange(NULL, '2027-01-01+00');
SET snowflake.time_predicates = off;
SELECT id FROM tp_negative WHERE snowflake_timestamp(id) < '2027-01-01+00';
RESET snowflake.time_predicates;
DROP TABLE tp_negative;
