-- The Citus parts of the extension on a server without Citus: the cluster
-- check refuses clearly, and ALTER TABLE fills rows with snowflake_nextval()
-- as ever (the guard against per-copy defaults is not installed without
-- Citus).
SELECT count(*) FROM pg_extension WHERE extname = 'citus';

-- The cluster check asks the nodes of a Citus cluster: there is none.
SELECT * FROM snowflake_cluster_check();

-- ADD COLUMN ... DEFAULT snowflake_nextval() fills the existing rows.
CREATE TABLE citus_guard (a int);
INSERT INTO citus_guard SELECT generate_series(1, 3);
ALTER TABLE citus_guard ADD COLUMN id bigint DEFAULT snowflake_nextval();
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids FROM citus_guard;
-- So does a rewrite USING it, in a statement with other subcommands.
ALTER TABLE citus_guard ADD COLUMN b int DEFAULT 0,
    ALTER COLUMN a TYPE bigint USING snowflake_nextval();
SELECT count(DISTINCT a) AS distinct_ids, min(a) > 0 AS ids FROM citus_guard;
DROP TABLE citus_guard;
