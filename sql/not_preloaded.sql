-- Without shared_preload_libraries: CREATE EXTENSION and decoding work,
-- generating says how to fix the configuration.
CREATE EXTENSION snowflake;
SET TimeZone = 'UTC';
SELECT * FROM snowflake_parse(910499571847892992);
\set VERBOSITY default
SELECT snowflake_nextval();
SELECT * FROM snowflake_generate(3);
SELECT * FROM snowflake_status;
