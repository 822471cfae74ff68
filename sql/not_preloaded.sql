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
