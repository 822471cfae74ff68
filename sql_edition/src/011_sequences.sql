-- G before C, in creation order and by name: pg_dump (of the plain script's
-- objects) reads and restores them in that order, so a restored C is never
-- below the restored G's region.
--
-- Both are UNLOGGED (PostgreSQL 15 and later): counting and moving to a new
-- millisecond write no WAL and take no transaction id, so a transaction that
-- only takes ids commits without a WAL flush.  A crash (or a promotion) resets
-- them to "no region"; the durable mark M (snowflake_sql_mark, logged, below)
-- is where the node then starts.  And logical replication leaves unlogged
-- sequences out (FOR ALL SEQUENCES included): no subscriber writes them.
CREATE UNLOGGED SEQUENCE IF NOT EXISTS @extschema@.snowflake_sql_bound
    AS bigint MINVALUE 0 START 0 CACHE 1 NO CYCLE;
CREATE UNLOGGED SEQUENCE IF NOT EXISTS @extschema@.snowflake_sql_counter
    AS bigint MINVALUE 0 START 0 CACHE 1 NO CYCLE;
-- An install of an earlier version has them logged: made unlogged in place
-- (their values kept; the mark is set from them below, 044_mark_init.sql).
ALTER SEQUENCE @extschema@.snowflake_sql_bound SET UNLOGGED;
ALTER SEQUENCE @extschema@.snowflake_sql_counter SET UNLOGGED;
-- M: a millisecond (since the epoch, as in the ids) that every region ever
-- published is below.  Written (logged, so its transaction's commit flushes
-- it) only when a new region would reach it, and then ahead by up to a
-- second: about one WAL flush a second, by the transaction that moved it.
CREATE SEQUENCE IF NOT EXISTS @extschema@.snowflake_sql_mark
    AS bigint MINVALUE 0 START 0 CACHE 1 NO CYCLE;
-- The layout the ids were made under (029_layout_guard.sql).
CREATE SEQUENCE IF NOT EXISTS @extschema@.snowflake_sql_layout
    AS bigint MINVALUE 0 START 0 CACHE 1 NO CYCLE;
COMMENT ON SEQUENCE @extschema@.snowflake_sql_layout IS
    'snowflake_sql: the epoch and widths the node''s ids were made under (0: none yet)';
COMMENT ON SEQUENCE @extschema@.snowflake_sql_bound IS
    'snowflake_sql: upper bound of the published region of ids (0: none yet)';
COMMENT ON SEQUENCE @extschema@.snowflake_sql_counter IS
    'snowflake_sql: the node''s id counter (values at or above snowflake_sql_bound are never issued)';
COMMENT ON SEQUENCE @extschema@.snowflake_sql_mark IS
    'snowflake_sql: durable mark, a millisecond every region of ids published so far is below';
-- "No region" reads as 0 (a fresh sequence reads as NULL).
DO $fresh$
BEGIN
    IF pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_bound') IS NULL THEN
        PERFORM pg_catalog.setval('@extschema@.snowflake_sql_bound', 0, true);
    END IF;
END
$fresh$;

