-- snowflake_status: one row describing this node's generator.
SET TimeZone = 'UTC';
SELECT count(*) AS rows FROM snowflake_status;

SELECT epoch, timestamp_bits, datacenter_bits, worker_bits, sequence_bits,
       datacenter_id, worker_id, clock_backward_policy, max_clock_backward_ms,
       random_sequence_start, lifetime_end
FROM snowflake_status;

-- Counters move with the ids issued.
CREATE TEMP TABLE before AS SELECT ids_issued FROM snowflake_status;
SELECT count(*) FROM snowflake_generate(1000);
SELECT s.ids_issued - b.ids_issued AS issued_since FROM snowflake_status s, before b;

-- The last id is the one just issued, and the durable mark is ahead of it.
SELECT snowflake_nextval() = (SELECT last_id FROM snowflake_status) AS last_id_matches;
SELECT durable_mark >= (snowflake_parse(last_id)).ts AS mark_covers_last_id,
       durable_writes >= 1 AS mark_written,
       borrowed_ahead_ms = 0 AS not_borrowing
FROM snowflake_status;

-- A node whose clock never stepped back reports no step, also after its
-- first ids had to wait for the first reservation.
SELECT clock_backward_events, max_clock_backward_step_ms FROM snowflake_status;

-- Where the identity comes from: the configuration here.
SELECT identity_source FROM snowflake_status;

-- What the node knows of its identities: every id of this identity carries
-- a time at or after identity_since (for this fresh node, its start), and it
-- has left no identity.
SELECT identity_since <= (snowflake_parse(snowflake_nextval())).ts AS since_before_its_ids,
       identity_since <= (SELECT min((snowflake_parse(id)).ts) FROM snowflake_generate(10) id)
         AS since_before_new_ids,
       identity_since >= pg_postmaster_start_time() - interval '1 s' AS since_this_start,
       retired_identity, retired_until
FROM snowflake_status;

-- An installation at an older version keeps working with this library: its
-- view has the columns of its version.
SELECT current_database() AS status_db \gset
CREATE DATABASE status_old_versions;
\c status_old_versions
CREATE EXTENSION snowflake VERSION '1.3';
SELECT count(*) AS columns_1_3 FROM information_schema.columns WHERE table_name = 'snowflake_status';
SELECT worker_id, lifetime_end IS NOT NULL AS has_lifetime_end FROM snowflake_status;
ALTER EXTENSION snowflake UPDATE TO '1.4';
SELECT worker_id, identity_source FROM snowflake_status;
ALTER EXTENSION snowflake UPDATE TO '1.5';
SELECT worker_id, identity_source, identity_since IS NOT NULL AS has_since FROM snowflake_status;
\c :status_db
DROP DATABASE status_old_versions;
