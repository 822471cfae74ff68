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
-- Its value is the millisecond shifted left 16 bits, with the node's tag
-- (snowflake_sql_config.mark_tag) in the 16 bits below: PostgreSQL 19's
-- FOR ALL SEQUENCES publishes it, and a value another database wrote carries
-- another tag (snowflake_sql_mark_ms).
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
    'snowflake_sql: durable mark, a millisecond every region of ids published so far is below (<< 16, with the node''s tag)';

-- The mark's millisecond: 0 for none yet; NULL when its tag is not tag (a
-- value this database did not write, which says nothing of its ids).  Its
-- names are qualified, not set by a SET (which costs a few microseconds a
-- call): the slow path reads the mark at every new region.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_mark_ms(tag integer)
RETURNS bigint
LANGUAGE plpgsql VOLATILE  -- names qualified
AS $body$
DECLARE
    v bigint;
BEGIN
    v := COALESCE(pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_mark'::pg_catalog.regclass), 0);
    RETURN CASE WHEN v OPERATOR(pg_catalog.=) 0 THEN 0
                WHEN (v OPERATOR(pg_catalog.&) 65535) OPERATOR(pg_catalog.=) tag
                THEN v OPERATOR(pg_catalog.>>) 16
           END;
END
$body$;

-- Writes the mark: the millisecond ms, with the node's tag.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_set_mark(ms bigint, tag integer)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    IF ms >= 1::bigint << 47 THEN
        RAISE EXCEPTION 'snowflake ids are exhausted: timestamp % ms is past what the durable mark '
                        'can hold', ms
            USING ERRCODE = '22003',
                  DETAIL = 'The SQL edition''s mark holds milliseconds below 2^47 (about 4,400 '
                           'years after the epoch).';
    END IF;
    PERFORM pg_catalog.setval('@extschema@.snowflake_sql_mark', (ms << 16) | tag, true);
END
$fn$;
REVOKE ALL ON FUNCTION @extschema@.snowflake_sql_mark_ms(integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.snowflake_sql_set_mark(bigint, integer) FROM PUBLIC;
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
        IF coalesce(@extschema@.snowflake_sql_mark_ms(s.mark_tag), 0) <= (hi - 1) >> shift THEN
            PERFORM @extschema@.snowflake_sql_set_mark(((hi - 1) >> shift) + 1, s.mark_tag);
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

