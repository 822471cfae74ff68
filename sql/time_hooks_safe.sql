-- The planner hooks never make a statement fail that succeeds without them,
-- and add their conditions only where they take them off again
-- (docs/time-queries.md, "What the planner adds"):
--   * a FOR UPDATE cursor over a partitioned table keeps every partition,
--     so that UPDATE ... WHERE CURRENT OF finds the partition's row mark;
--   * a time value that can raise an error (a subquery's text read as a
--     time, a range whose lower end is above its upper end) is not computed
--     before a row is compared with it: no bound from it;
--   * a UNION ALL with a branch that is not a table gets nothing added.
-- Each statement is run with the hooks and without them
-- (snowflake.time_predicates = off, the plan PostgreSQL makes alone).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS snowflake;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;
SET TimeZone = 'UTC';
\set VERBOSITY default
\set SHOW_CONTEXT never

CREATE TABLE ths_parted (id bigint NOT NULL, v integer NOT NULL, note text) PARTITION BY RANGE (id);
SELECT count(*) AS months
FROM snowflake_create_partitions('ths_parted', '2026-01-01+00', '2026-04-01+00', '1 month');
INSERT INTO ths_parted
SELECT snowflake_min_id(timestamptz '2026-01-01+00' + g * interval '1 hour'), g, 'n'
FROM generate_series(0, 2000) g;
CREATE TABLE ths_plain (id bigint PRIMARY KEY, v integer NOT NULL, g integer NOT NULL);
INSERT INTO ths_plain SELECT id, v, v % 7 FROM ths_parted;
ANALYZE ths_parted, ths_plain;

-- The query's result with the hooks, and whether it is the same without
-- them ("error: ..." for an error).
CREATE FUNCTION ths_on_off(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r_on text;
    r_off text;
BEGIN
    BEGIN
        EXECUTE query INTO r_on;
    EXCEPTION WHEN OTHERS THEN
        r_on := 'error: ' || SQLERRM;
    END;
    PERFORM set_config('snowflake.time_predicates', 'off', true);
    BEGIN
        EXECUTE query INTO r_off;
    EXCEPTION WHEN OTHERS THEN
        r_off := 'error: ' || SQLERRM;
    END;
    PERFORM set_config('snowflake.time_predicates', 'on', true);
    RETURN coalesce(r_on, 'null')
           || CASE WHEN r_on IS NOT DISTINCT FROM r_off THEN ' (same as off)' ELSE ' <> ' || coalesce(r_off, 'null') END;
END $$;

-- Whether the plan (with its estimates) is the one without the hooks.
CREATE FUNCTION ths_same_plan(query text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    p_on text := '';
    p_off text := '';
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN ' || query LOOP
        p_on := p_on || line || E'\n';
    END LOOP;
    PERFORM set_config('snowflake.time_predicates', 'off', true);
    FOR line IN EXECUTE 'EXPLAIN ' || query LOOP
        p_off := p_off || line || E'\n';
    END LOOP;
    PERFORM set_config('snowflake.time_predicates', 'on', true);
    RETURN p_on = p_off;
END $$;

-- The partitions a query's plan scans.
CREATE FUNCTION ths_scanned(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    n bigint := 0;
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
        IF line ~ 'Scan on ths_parted_' THEN
            n := n + 1;
        END IF;
    END LOOP;
    RETURN n;
END $$;

-- ----------------------------------------------- FOR UPDATE cursors
-- Without FOR UPDATE, a February window scans one month of three; with
-- it, every month, so that WHERE CURRENT OF finds the row it points at.
SELECT ths_scanned($$SELECT * FROM ths_parted
                     WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11'$$)
       AS scanned,
       ths_scanned($$SELECT * FROM ths_parted
                     WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11'
                     FOR UPDATE$$) AS scanned_for_update;
BEGIN;
DECLARE ths_c CURSOR FOR
    SELECT id, v FROM ths_parted
    WHERE snowflake_timestamp(id) >= '2026-02-10' AND snowflake_timestamp(id) < '2026-02-11'
    ORDER BY id
    FOR UPDATE;
FETCH ths_c;
UPDATE ths_parted SET note = 'current' WHERE CURRENT OF ths_c;
FETCH ths_c;
DELETE FROM ths_parted WHERE CURRENT OF ths_c;
COMMIT;
SELECT v, note, tableoid::regclass AS partition FROM ths_parted WHERE v BETWEEN 960 AND 962 ORDER BY v;
-- The same in a function's cursor, with the window a parameter.
CREATE FUNCTION ths_mark(since timestamptz) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    c CURSOR FOR SELECT id FROM ths_parted WHERE snowflake_timestamp(id) >= since ORDER BY id FOR UPDATE;
    n integer := 0;
BEGIN
    FOR r IN c LOOP
        UPDATE ths_parted SET note = 'marked' WHERE CURRENT OF c;
        n := n + 1;
    END LOOP;
    RETURN n;
END $$;
SELECT ths_mark('2026-03-24 00:00+00') AS marked;
SELECT count(*) FILTER (WHERE note = 'marked') AS marked FROM ths_parted;

-- ------------------------------------------- values that can fail
-- No row has v < 0, so without the hooks the time value is never computed.
-- A subquery's text that is no time, an inverted range, a range built from
-- a subquery, on the partitioned table (pruning) and on the plain one
-- (index scans), with a generic plan's parameter too.
SELECT q, ths_on_off(q) FROM (VALUES
    ($$SELECT count(*) FROM ths_parted
       WHERE v < 0 AND snowflake_timestamp(id) >= (SELECT '2026-01-05 25:00'::text)::timestamptz$$),
    ($$SELECT count(*) FROM ths_plain
       WHERE v < 0 AND snowflake_timestamp(id) >= (SELECT '2026-01-05 25:00'::text)::timestamptz$$),
    ($$SELECT count(*) FROM ths_parted
       WHERE v < 0 AND id <@ tstzrange((SELECT '2026-02-02'::timestamptz), (SELECT '2026-02-01'::timestamptz))$$),
    ($$SELECT count(*) FROM ths_plain
       WHERE v < 0 AND snowflake_made_within(id, tstzrange((SELECT '2026-02-02'::timestamptz), (SELECT '2026-02-01'::timestamptz)))$$),
    ($$SELECT count(*) FROM ths_parted
       WHERE v < 0 AND snowflake_timestamp(id) >= (SELECT max(v) / 0 FROM ths_plain)::text::timestamptz$$),
    ($$SELECT count(*) FROM ths_plain
       WHERE v < 0 AND snowflake_timestamp(id) >= (SELECT max(t) FROM (VALUES (now())) x(t)) + interval '300000 years'$$)) t(q);
-- Parameters of a generic plan: text read as a time, a time moved past the
-- last timestamp, an inverted range.
PREPARE ths_text(text) AS
    SELECT count(*) FROM ths_parted WHERE v < 0 AND snowflake_timestamp(id) >= $1::timestamptz;
PREPARE ths_moved(timestamptz) AS
    SELECT count(*) FROM ths_plain WHERE v < 0 AND snowflake_timestamp(id) >= $1 + interval '300000 years';
PREPARE ths_range(timestamptz, timestamptz) AS
    SELECT count(*) FROM ths_parted WHERE v < 0 AND id <@ tstzrange($1, $2);
SET plan_cache_mode = force_generic_plan;
EXECUTE ths_text('2026-01-05 25:00');
EXECUTE ths_moved('2026-01-05');
EXECUTE ths_range('2026-02-02', '2026-02-01');
RESET plan_cache_mode;
DEALLOCATE ths_moved;
DEALLOCATE ths_range;
DEALLOCATE ths_text;
-- The rows are the same with a window that fails on a row that is compared.
SELECT ths_on_off($$SELECT count(*) FROM ths_parted
                    WHERE v > 1990 AND snowflake_timestamp(id) >= (SELECT '2026-01-05 25:00'::text)::timestamptz$$)
       AS compared;
-- Values that cannot fail still give bounds: the current time moved and
-- truncated, a text constant that reads, the ends of a range built from
-- them, a generic plan's parameter.  Not the output of a subquery: it is
-- computed when first read, and the subquery could fail.
SELECT q, ths_scanned(q) AS scanned FROM (VALUES
    ($$SELECT * FROM ths_parted WHERE snowflake_timestamp(id) >= now() - interval '1 day'$$),
    ($$SELECT * FROM ths_parted WHERE snowflake_timestamp(id) >= date_trunc('month', now()) + interval '1 month'$$),
    ($$SELECT * FROM ths_parted WHERE snowflake_timestamp(id) >= current_date - 7$$),
    ($$SELECT * FROM ths_parted WHERE snowflake_timestamp(id) >= '2026-02-10 12:00'::text::timestamptz
                                  AND snowflake_timestamp(id) < '2026-02-11'::text::date$$),
    ($$SELECT * FROM ths_parted WHERE id <@ tstzrange('2026-02-10'::text::timestamptz, '2026-02-11'::text::timestamptz, '[]')$$),
    ($$SELECT * FROM ths_parted WHERE snowflake_timestamp(id) >= (SELECT '2026-02-10'::timestamptz)$$)) t(q);
PREPARE ths_since(timestamptz) AS SELECT * FROM ths_parted WHERE snowflake_timestamp(id) >= $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE ths_since('2026-03-10');
RESET plan_cache_mode;
DEALLOCATE ths_since;

-- ------------------------------------------------------ UNION ALL
-- A branch that is not a table (an aggregate) gets no added condition: the
-- plan and its estimates are the ones without the hooks.  Branches that
-- are all tables keep the pruning.
SELECT ths_same_plan($$SELECT * FROM (SELECT id FROM ths_parted
                                      UNION ALL SELECT max(id) FROM ths_plain GROUP BY g) u
                       WHERE snowflake_timestamp(u.id) >= '2026-03-01'$$) AS same_plan_with_aggregate,
       ths_on_off($$SELECT count(*) FROM (SELECT id FROM ths_parted
                                          UNION ALL SELECT max(id) FROM ths_plain GROUP BY g) u
                    WHERE snowflake_timestamp(u.id) >= '2026-03-01'$$) AS rows_with_aggregate,
       ths_scanned($$SELECT * FROM (SELECT id FROM ths_parted UNION ALL SELECT id FROM ths_parted) u
                     WHERE snowflake_timestamp(u.id) >= '2026-03-01'$$) AS scanned_tables_only;

DROP FUNCTION ths_mark(timestamptz);
DROP FUNCTION ths_scanned(text);
DROP FUNCTION ths_same_plan(text);
DROP FUNCTION ths_on_off(text);
DROP TABLE ths_parted, ths_plain;
