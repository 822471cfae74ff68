-- Without shared_preload_libraries: CREATE EXTENSION and decoding work,
-- generating says how to fix the configuration.
CREATE EXTENSION snowflake;
SET TimeZone = 'UTC';
SELECT * FROM snowflake_parse(910499571847892992);
\set VERBOSITY default
SELECT snowflake_nextval();
SELECT * FROM snowflake_generate(3);
SELECT * FROM snowflake_status;

-- snowflake_convert_column refuses, changing nothing: it cannot issue ids
-- here (a dry run too: it would not work either).
CREATE TABLE np_orders (id serial PRIMARY KEY, note text);
INSERT INTO np_orders (note) VALUES ('a'), ('b');
\set SHOW_CONTEXT never
SELECT * FROM snowflake_convert_column('np_orders', 'id');
SELECT * FROM snowflake_convert_column('np_orders', 'id', dry_run => true);
\set VERBOSITY sqlstate
SELECT * FROM snowflake_convert_column('np_orders', 'id');
\set VERBOSITY default
SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS type, pg_get_expr(d.adbin, d.adrelid) AS "default"
FROM pg_attribute a JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attrelid = 'np_orders'::regclass;
SELECT count(*) AS rows, max(id) AS max_id FROM np_orders;

-- Time predicates without preloading.  The operator's support function is
-- part of the catalog: it works in any session.  The planner hooks are
-- installed when a session loads the library, at its first call of a
-- snowflake function: statements planned from then on are offered the id's
-- index, the ones before are planned without it (same results).
CREATE TABLE np_events (id bigint PRIMARY KEY);
INSERT INTO np_events
SELECT snowflake_min_id(timestamptz '2026-01-01+00' + g * interval '1 min') FROM generate_series(0, 9999) g;
VACUUM ANALYZE np_events;
\c
SET max_parallel_workers_per_gather = 0;
SET TimeZone = 'UTC';
SELECT count(*) AS loaded FROM pg_settings WHERE name = 'snowflake.time_predicates';
EXPLAIN (COSTS OFF)
SELECT count(*) FROM np_events
WHERE snowflake_timestamp(id) >= '2026-01-02' AND snowflake_timestamp(id) < '2026-01-03';
SELECT count(*) FROM np_events
WHERE snowflake_timestamp(id) >= '2026-01-02' AND snowflake_timestamp(id) < '2026-01-03';
SELECT count(*) AS loaded FROM pg_settings WHERE name = 'snowflake.time_predicates';
EXPLAIN (COSTS OFF)
SELECT count(*) FROM np_events
WHERE snowflake_timestamp(id) >= '2026-01-02' AND snowflake_timestamp(id) < '2026-01-03';
SELECT count(*) FROM np_events
WHERE snowflake_timestamp(id) >= '2026-01-02' AND snowflake_timestamp(id) < '2026-01-03';
-- In a new session, the operator works from its first statement (planning
-- it loads the library).
\c
SET max_parallel_workers_per_gather = 0;
SELECT count(*) AS loaded FROM pg_settings WHERE name = 'snowflake.time_predicates';
EXPLAIN (COSTS OFF)
SELECT count(*) FROM np_events WHERE id <@ tstzrange('2026-01-02+00', '2026-01-03+00');
EXPLAIN (COSTS OFF)
SELECT count(*) FROM np_events WHERE id <@ tstzrange(now() - interval '1 day', now());
DROP TABLE np_events;
