-- Partitions by time without arithmetic: snowflake_create_partitions makes
-- range partitions of an id-partitioned table for a time span and step,
-- snowflake_drop_partitions drops (or detaches) those entirely older than a
-- time.  Neither depends on the session's TimeZone.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS snowflake;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;
\set VERBOSITY default
\set SHOW_CONTEXT never

-- Bounds of the partitions of a table, decoded, in UTC.
CREATE FUNCTION tpart_bounds(parent regclass)
RETURNS TABLE (partition name, from_utc timestamp, to_utc timestamp, contiguous boolean)
LANGUAGE sql AS $$
    SELECT relname, snowflake_timestamp(lo) AT TIME ZONE 'UTC',
           snowflake_timestamp(hi) AT TIME ZONE 'UTC',
           lo = lag(hi) OVER (ORDER BY lo)
    FROM (SELECT c.relname, b[1]::bigint AS lo, b[2]::bigint AS hi
          FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid,
               LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid),
                                    'FROM \(''(\d+)''\) TO \(''(\d+)''\)') b
          WHERE i.inhparent = parent) x
    ORDER BY lo
$$;

-- ------------------------------------------------------------- create
-- A year of months, in a session 14 hours ahead of UTC: the months are
-- UTC months all the same, and contiguous.
SET TimeZone = 'Pacific/Kiritimati';
CREATE TABLE tpart_events (
    id   bigint NOT NULL DEFAULT snowflake_nextval(),
    kind text   NOT NULL,
    PRIMARY KEY (id)
) PARTITION BY RANGE (id);
SELECT * FROM snowflake_create_partitions('tpart_events', '2026-01-01 00:00:00+00', '2027-01-01 00:00:00+00',
                                          '1 month');
SHOW TimeZone;
SELECT * FROM tpart_bounds('tpart_events');
-- Every id of 2026 has its partition: the first and the last id of each
-- month, and one from mid-April.
INSERT INTO tpart_events
SELECT snowflake_min_id(m), 'first' FROM generate_series(0, 11) i,
     LATERAL (SELECT timestamptz '2026-01-01 00:00:00+00' + i * interval '1 month' AS m) s;
INSERT INTO tpart_events
SELECT snowflake_max_id(m - interval '1 ms'), 'last' FROM generate_series(1, 12) i,
     LATERAL (SELECT timestamptz '2026-01-01 00:00:00+00' + i * interval '1 month' AS m) s;
INSERT INTO tpart_events VALUES (snowflake_min_id('2026-04-15 12:00:00+00'), 'april');
SELECT tableoid::regclass AS partition FROM tpart_events WHERE kind = 'april';
SELECT count(*) AS rows,
       count(*) FILTER (WHERE to_char(snowflake_timestamp(id) AT TIME ZONE 'UTC', 'YYYY_MM')
                              <> substr(tableoid::regclass::text, length('tpart_events_') + 1))
         AS misplaced
FROM tpart_events;
-- Run again, nothing to do; extended, only the new months (a dry run
-- says what it would do, and does nothing).
SELECT * FROM snowflake_create_partitions('tpart_events', '2026-01-01 00:00:00+00', '2027-01-01 00:00:00+00',
                                          '1 month');
SELECT * FROM snowflake_create_partitions('tpart_events', '2026-01-01 00:00:00+00', '2027-02-15 00:00:00+00',
                                          '1 month', dry_run => true);
SELECT count(*) AS partitions FROM pg_inherits WHERE inhparent = 'tpart_events'::regclass;
SELECT * FROM snowflake_create_partitions('tpart_events', '2026-01-01 00:00:00+00', '2027-02-15 00:00:00+00',
                                          '1 month');

-- Days in a zone of its own: local midnights, across a change to summer
-- time (Berlin, 2026-03-29: the day has 23 hours), in a session in Adak.
SET TimeZone = 'America/Adak';
CREATE TABLE tpart_days (id bigint NOT NULL) PARTITION BY RANGE (id);
SELECT * FROM snowflake_create_partitions('tpart_days', '2026-03-28 00:00:00+01', '2026-03-31 00:00:00+02',
                                          '1 day', time_zone => 'Europe/Berlin');
SELECT * FROM tpart_bounds('tpart_days');
-- Other steps name their partitions to their unit: years, weeks (days),
-- hours, minutes, seconds.
CREATE TABLE tpart_steps (id bigint NOT NULL) PARTITION BY RANGE (id);
SELECT * FROM snowflake_create_partitions('tpart_steps', '2020-01-01+00', '2022-01-01+00', '1 year');
SELECT * FROM snowflake_create_partitions('tpart_steps', '2022-01-01+00', '2022-01-15+00', '1 week');
SELECT * FROM snowflake_create_partitions('tpart_steps', '2022-01-15+00', '2022-01-15 02:00+00', '1 hour');
SELECT * FROM snowflake_create_partitions('tpart_steps', '2022-01-15 02:00+00', '2022-01-15 02:30+00', '15 minutes');
SELECT * FROM snowflake_create_partitions('tpart_steps', '2022-01-15 02:30+00', '2022-01-15 02:30:01+00', '0.5 s');
SELECT count(*) AS partitions, count(*) FILTER (WHERE contiguous) AS contiguous FROM tpart_bounds('tpart_steps');
-- From January 31, a month later is the end of February and then March 31
-- (each step counts from the start, so February does not shorten March).
CREATE TABLE tpart_ends (id bigint NOT NULL) PARTITION BY RANGE (id);
SELECT count(*) AS partitions
FROM snowflake_create_partitions('tpart_ends', '2026-01-31+00', '2026-04-01+00', '1 month');
SELECT * FROM tpart_bounds('tpart_ends');
-- The partition that holds the epoch starts at id 0; the one past the end of
-- the lifetime ends at MAXVALUE.
CREATE TABLE tpart_edges (id bigint NOT NULL) PARTITION BY RANGE (id);
SELECT * FROM snowflake_create_partitions('tpart_edges', '2010-11-01+00', '2010-12-01+00', '1 month');
SELECT * FROM snowflake_create_partitions('tpart_edges', '2080-07-01+00', '2080-08-01+00', '1 month');
INSERT INTO tpart_edges VALUES (0), (9223372036854775807);
SELECT tableoid::regclass AS partition, id FROM tpart_edges ORDER BY id;

-- --------------------------------------------------------- refusals
CREATE TABLE tpart_plain (id bigint PRIMARY KEY);
CREATE TABLE tpart_list (id bigint NOT NULL) PARTITION BY LIST (id);
CREATE TABLE tpart_two (id bigint NOT NULL, k int NOT NULL) PARTITION BY RANGE (id, k);
CREATE TABLE tpart_expr (id bigint NOT NULL) PARTITION BY RANGE ((id / 2));
CREATE TABLE tpart_int (id integer NOT NULL) PARTITION BY RANGE (id);
SELECT snowflake_create_partitions('tpart_plain', '2026-01-01+00', '2026-02-01+00', '1 day');
SELECT snowflake_create_partitions('tpart_list', '2026-01-01+00', '2026-02-01+00', '1 day');
SELECT snowflake_create_partitions('tpart_two', '2026-01-01+00', '2026-02-01+00', '1 day');
SELECT snowflake_create_partitions('tpart_expr', '2026-01-01+00', '2026-02-01+00', '1 day');
SELECT snowflake_create_partitions('tpart_int', '2026-01-01+00', '2026-02-01+00', '1 day');
SELECT snowflake_create_partitions('tpart_days', '2026-01-01+00', '2026-02-01+00', '0 days');
SELECT snowflake_create_partitions('tpart_days', '2026-01-01+00', '2026-02-01+00', '-1 day');
SELECT snowflake_create_partitions('tpart_days', '2026-01-31+00', '2026-06-01+00', '1 month -29 days');
SELECT snowflake_create_partitions('tpart_days', '2026-02-01+00', '2026-01-01+00', '1 day');
SELECT snowflake_create_partitions('tpart_days', '-infinity', '2026-01-01+00', '1 day');
SELECT snowflake_create_partitions('tpart_days', NULL, '2026-01-01+00', '1 day');
SELECT snowflake_create_partitions('tpart_days', '2026-01-01+00', '2026-02-01+00', '1 day', time_zone => 'Mars/Olympus');
SELECT snowflake_create_partitions('tpart_days', '2026-01-01+00', '2030-01-01+00', '1 hour');
SELECT snowflake_create_partitions('tpart_days', '2026-03-29 12:00:00+00', '2026-04-02 00:00:00+00', '1 day');
SELECT snowflake_create_partitions('tpart_edges', '2010-10-01+00', '2010-11-01+00', '1 month');
-- A step shorter than a millisecond puts a partition within one millisecond,
-- which holds no id (ids carry whole milliseconds).
SELECT snowflake_create_partitions('tpart_steps', '2026-01-01 00:00:00.0001+00', '2026-01-01 00:00:00.0009+00',
                                   '0.2 ms');
SELECT snowflake_create_partitions('tpart_edges', '2080-08-01+00', '2080-09-01+00', '1 month');
SELECT snowflake_create_partitions('tpart_days', '2026-11-01 00:00:00-09', '2026-11-01 04:00:00-10', '1 hour',
                                   time_zone => 'America/Adak');
CREATE TABLE tpart_days_2026_04_05 (id bigint);
SELECT snowflake_create_partitions('tpart_days', '2026-04-05 00:00:00+02', '2026-04-06 00:00:00+02', '1 day',
                                   time_zone => 'Europe/Berlin');
CREATE TABLE tpart_a_table_whose_name_is_long_enough_to_fill_a_name (id bigint NOT NULL) PARTITION BY RANGE (id);
SELECT snowflake_create_partitions('tpart_a_table_whose_name_is_long_enough_to_fill_a_name', '2026-01-01+00',
                                   '2026-01-02+00', '1 day');
-- Nothing was created by the refusals.
SELECT count(*) AS partitions FROM pg_inherits WHERE inhparent = 'tpart_days'::regclass;

-- ------------------------------------------------------------ retire
-- Entirely older than: every id the partition can hold was made before the
-- time.  February's last millisecond is 23:59:59.999: at that time exactly,
-- February is not entirely older; half a millisecond later it is.
SET TimeZone = 'Pacific/Kiritimati';
SELECT * FROM snowflake_drop_partitions('tpart_events', '2026-02-28 23:59:59.999+00', dry_run => true);
SELECT * FROM snowflake_drop_partitions('tpart_events', '2026-02-28 23:59:59.9995+00', dry_run => true);
SELECT * FROM snowflake_drop_partitions('tpart_events', '2026-03-01 00:00:00.0005+00', dry_run => true);
-- Detach January (the table stays, with its rows), drop February.
SELECT * FROM snowflake_drop_partitions('tpart_events', '2026-02-01+00', keep_table => true);
SELECT count(*) AS rows, min(kind) AS kind FROM tpart_events_2026_01;
SELECT * FROM snowflake_drop_partitions('tpart_events', '2026-03-01+00');
SELECT to_regclass('tpart_events_2026_02') AS february;
SELECT min(partition) AS first_partition, count(*) AS partitions FROM tpart_bounds('tpart_events');
-- A DEFAULT partition and one up to MAXVALUE are never entirely older.
CREATE TABLE tpart_events_default PARTITION OF tpart_events DEFAULT;
SELECT * FROM snowflake_drop_partitions('tpart_edges', '2100-01-01+00', dry_run => true);
SELECT * FROM snowflake_drop_partitions('tpart_events', '2000-01-01+00');
SELECT snowflake_drop_partitions('tpart_events', 'infinity');
SELECT snowflake_drop_partitions('tpart_plain', '2026-01-01+00');
SELECT snowflake_drop_partitions('tpart_events', NULL);
SHOW TimeZone;
-- A row past the last partition lands in the DEFAULT partition; the
-- partition of its month can then not be created until it is moved out.
INSERT INTO tpart_events VALUES (snowflake_min_id('2027-03-15 00:00:00+00'), 'ahead');
SELECT tableoid::regclass AS partition FROM tpart_events WHERE kind = 'ahead';
SELECT * FROM snowflake_create_partitions('tpart_events', '2027-03-01 00:00:00+00', '2027-04-01 00:00:00+00', '1 month');
BEGIN;
CREATE TEMP TABLE tpart_moved ON COMMIT DROP AS
WITH moved AS (DELETE FROM tpart_events_default WHERE kind = 'ahead' RETURNING *) SELECT * FROM moved;
SELECT count(*) FROM snowflake_create_partitions('tpart_events', '2027-03-01 00:00:00+00', '2027-04-01 00:00:00+00', '1 month');
INSERT INTO tpart_events SELECT * FROM tpart_moved;
COMMIT;
SELECT tableoid::regclass AS partition FROM tpart_events WHERE kind = 'ahead';

-- ------------------------------------------------ pruning by time
-- Bounds from whole milliseconds: a time window touches only its partitions.
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tpart_events
WHERE snowflake_timestamp(id) >= '2026-04-01 00:00:00+00' AND snowflake_timestamp(id) < '2026-05-01 00:00:00+00';
SELECT kind FROM tpart_events
WHERE snowflake_timestamp(id) >= '2026-04-01 00:00:00+00' AND snowflake_timestamp(id) < '2026-05-01 00:00:00+00'
ORDER BY id;

RESET TimeZone;
DROP TABLE tpart_events, tpart_events_2026_01, tpart_days, tpart_steps, tpart_ends, tpart_edges, tpart_plain,
           tpart_list, tpart_two, tpart_expr, tpart_int, tpart_days_2026_04_05,
           tpart_a_table_whose_name_is_long_enough_to_fill_a_name;
DROP FUNCTION tpart_bounds(regclass);
