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
-- An install of an earlier version (1.5) has C and G logged, and neither M
-- nor the layout.  Before they are used unlogged: M is set above the region
-- G published, and the layout from the configuration; then both are made
-- unlogged and restarted, "no region", so the node next starts at M, as after
-- a crash.  Restarted, not kept: SET UNLOGGED writes the values it finds
-- into the init fork, which a crash restores -- G's region, whose ids were
-- issued, would be handed out again.  The rewrites are transactional (an
-- update that fails leaves the earlier version's sequences as they were);
-- the setval of M is not, and only moves it up.
DO $unlogged$
DECLARE
    s record;
    hi bigint;
    shift integer;
BEGIN
    IF (SELECT c.relpersistence FROM pg_catalog.pg_class c
        WHERE c.oid = '@extschema@.snowflake_sql_bound'::pg_catalog.regclass) = 'u' THEN
        RETURN;
    END IF;
    hi := coalesce(pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_bound'), 0);
    SELECT * INTO s FROM @extschema@.snowflake_sql_config;
    IF hi > 0 AND FOUND THEN
        shift := s.datacenter_bits + s.worker_bits + s.sequence_bits;
        IF coalesce(pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_mark'), 0)
           <= (hi - 1) >> shift THEN
            PERFORM pg_catalog.setval('@extschema@.snowflake_sql_mark', ((hi - 1) >> shift) + 1, true);
        END IF;
        IF coalesce(pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_layout'), 0) = 0 THEN
            PERFORM pg_catalog.setval('@extschema@.snowflake_sql_layout',
                (s.epoch_ms << 15) | (s.datacenter_bits << 10) | (s.worker_bits << 5) | s.sequence_bits,
                true);
        END IF;
    END IF;
    ALTER SEQUENCE @extschema@.snowflake_sql_bound SET UNLOGGED;
    ALTER SEQUENCE @extschema@.snowflake_sql_counter SET UNLOGGED;
    ALTER SEQUENCE @extschema@.snowflake_sql_bound RESTART;
    ALTER SEQUENCE @extschema@.snowflake_sql_counter RESTART;
END
$unlogged$;
-- "No region" reads as 0 (a fresh sequence reads as NULL).
DO $fresh$
BEGIN
    IF pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_bound') IS NULL THEN
        PERFORM pg_catalog.setval('@extschema@.snowflake_sql_bound', 0, true);
    END IF;
END
$fresh$;

