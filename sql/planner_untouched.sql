-- Queries that call no snowflake function get the rows and the plan they
-- get without the extension: the planner-side code adds only what a
-- snowflake time condition implies, and never touches anything else.
-- (The differential suite, test/scripts/planner_diff.sh, compares a few
-- hundred such queries with a server that does not load the library.)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS snowflake;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;

-- A user's "id >= 0" beside a lower bound that is a function call: both
-- stay, on any bigint column.
CREATE TABLE pu_neg (id bigint PRIMARY KEY);
INSERT INTO pu_neg SELECT generate_series(-10, 10);
CREATE TABLE pu_lim (lo int);
INSERT INTO pu_lim VALUES (-5);
ANALYZE pu_neg, pu_lim;
SELECT array_agg(id ORDER BY id) FROM pu_neg, pu_lim
WHERE id >= pu_lim.lo::bigint AND id BETWEEN '0' AND 3;
SELECT array_agg(id ORDER BY id) FROM pu_neg
WHERE id BETWEEN int8(-5) AND 100 AND id BETWEEN '0' AND 3;
EXPLAIN (COSTS OFF) SELECT id FROM pu_neg
WHERE id BETWEEN int8(-5) AND 100 AND id BETWEEN '0' AND 3;
-- The same shapes with the time conditions of the extension beside them:
-- the user's conditions all stay.
SELECT array_agg(id ORDER BY id) FROM pu_neg
WHERE id >= int8(-5) AND id >= 0 AND snowflake_timestamp(id) < '2030-01-01+00';
EXPLAIN (COSTS OFF) SELECT id FROM pu_neg
WHERE id >= int8(-5) AND id >= 0 AND snowflake_timestamp(id) < '2030-01-01+00';

-- The settings that turn the planner-side code off change nothing here.
SET snowflake.time_predicates = off;
SELECT array_agg(id ORDER BY id) FROM pu_neg
WHERE id BETWEEN int8(-5) AND 100 AND id BETWEEN '0' AND 3;
RESET snowflake.time_predicates;

DROP TABLE pu_neg, pu_lim;
