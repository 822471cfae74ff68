-- snowflake_lastval(): the last id snowflake_nextval() returned in this
-- session, as lastval() is to nextval().
SET TimeZone = 'UTC';

-- A new session has none yet: an error, as lastval() gives.
\c
SELECT snowflake_lastval();
\echo SQLSTATE :LAST_ERROR_SQLSTATE

-- snowflake_generate() does not set it.
SELECT count(*) FROM snowflake_generate(5);
SELECT snowflake_lastval();
\echo SQLSTATE :LAST_ERROR_SQLSTATE

-- After snowflake_nextval(): that id.
SELECT snowflake_nextval() AS a \gset
SELECT snowflake_lastval() = :a AS lastval_is_the_id;

-- After an INSERT whose default calls snowflake_nextval(): the last row's id.
CREATE TABLE lv (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), n integer);
INSERT INTO lv (n) SELECT g FROM generate_series(1, 1000) g;
SELECT snowflake_lastval() = (SELECT max(id) FROM lv) AS lastval_is_the_last_row;

-- snowflake_generate() in between leaves it alone, even when its ids are larger.
SELECT snowflake_lastval() AS before_generate \gset
SELECT max(x) > :before_generate AS generate_ids_are_larger FROM snowflake_generate(10) x;
SELECT snowflake_lastval() = :before_generate AS unchanged_by_generate;

-- Kept across a rollback, as lastval() is: the id was issued all the same.
BEGIN;
INSERT INTO lv (n) VALUES (0) RETURNING id AS rolled_back \gset
ROLLBACK;
SELECT snowflake_lastval() = :rolled_back AS kept_after_rollback;

-- Each session has its own: another session has none yet.
\c
SELECT snowflake_lastval();
\echo SQLSTATE :LAST_ERROR_SQLSTATE

-- Volatile, strict-free (no arguments), parallel restricted: the value lives
-- in the session's own process.
SELECT proname, provolatile, proparallel FROM pg_proc WHERE proname = 'snowflake_lastval';

DROP TABLE lv;
