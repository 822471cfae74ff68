-- G before C, in creation order and by name: pg_dump (of the plain script's
-- objects) reads and restores them in that order, so a restored C is never
-- below the restored G's region.
CREATE SEQUENCE IF NOT EXISTS @extschema@.snowflake_sql_bound AS bigint MINVALUE 0 START 0 CACHE 1 NO CYCLE;
CREATE SEQUENCE IF NOT EXISTS @extschema@.snowflake_sql_counter AS bigint MINVALUE 0 START 0 CACHE 1 NO CYCLE;
COMMENT ON SEQUENCE @extschema@.snowflake_sql_bound IS
    'snowflake_sql: upper bound of the published region of ids (0: none yet)';
COMMENT ON SEQUENCE @extschema@.snowflake_sql_counter IS
    'snowflake_sql: the node''s id counter (values at or above snowflake_sql_bound are never issued)';
-- "No region" reads as 0 (a fresh sequence reads as NULL).
DO $fresh$
BEGIN
    IF pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_bound') IS NULL THEN
        PERFORM pg_catalog.setval('@extschema@.snowflake_sql_bound', 0, true);
    END IF;
END
$fresh$;

