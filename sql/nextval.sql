-- snowflake_nextval: unique, increasing, decodes to this node, usable as DEFAULT.
CREATE TABLE ev (
    id bigint PRIMARY KEY DEFAULT snowflake_nextval(),
    n integer NOT NULL
);
INSERT INTO ev (n) SELECT g FROM generate_series(1, 10000) g;

-- 10k rows: all distinct, increasing in insertion order.
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids FROM ev;
SELECT count(*) AS out_of_order
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM ev) s
WHERE id <= prev;

-- Every id decodes to this node (worker 25, datacenter 17 in test/conf/regress.conf)
-- and to a time close to now.
SELECT DISTINCT p.datacenter_id, p.worker_id
FROM ev, LATERAL snowflake_parse(id) p;
SELECT bool_and(p.ts BETWEEN now() - interval '1 minute' AND clock_timestamp() + interval '2 seconds')
       AS times_are_now
FROM ev, LATERAL snowflake_parse(id) p;

-- Ids within one millisecond count the sequence up; a new millisecond restarts it.
SELECT bool_and(p.sequence >= 0 AND p.sequence < 4096) AS sequences_in_range
FROM ev, LATERAL snowflake_parse(id) p;

-- Many ids in one statement also stay increasing (sequence exhaustion moves on
-- to the next millisecond instead of repeating).
SELECT count(*) AS ids, count(DISTINCT x) AS distinct_ids,
       bool_and(x > prev) AS increasing
FROM (SELECT x, lag(x) OVER (ORDER BY o) AS prev
      FROM (SELECT snowflake_nextval() x, o FROM generate_series(1, 20000) o) a) b;

-- snowflake_generate: n ids in increasing order; n outside 1..1000000 is an error.
SELECT count(*) AS ids, count(DISTINCT x) AS distinct_ids,
       bool_and(x > prev) AS increasing
FROM (SELECT x, lag(x) OVER (ORDER BY o) AS prev
      FROM snowflake_generate(50000) WITH ORDINALITY AS t(x, o)) b;
SELECT min(x) > (SELECT max(id) FROM ev) AS above_earlier_ids FROM snowflake_generate(10) x;
SELECT count(*) FROM snowflake_generate(0);
SELECT count(*) FROM snowflake_generate(-1);
SELECT count(*) FROM snowflake_generate(1000001);
SELECT count(*) FROM snowflake_generate(NULL);

-- snowflake_generate() issues its ids a block at a time, when the block's
-- first row is produced: the block's ids are issued then, together, above
-- every id issued before.  Read through a cursor (in the select list, where
-- rows are made one at a time; in FROM they are all made at the first
-- fetch), a row produced after an id issued meanwhile (here, by this
-- session's snowflake_nextval()) belongs to the block issued before that id:
-- the first row is below it.  The rows are increasing, and above every id
-- issued before the cursor opened.
SELECT snowflake_nextval() AS before_cursor \gset
BEGIN;
DECLARE c NO SCROLL CURSOR FOR SELECT snowflake_generate(3) AS x;
FETCH 1 FROM c \gset first_
SELECT snowflake_nextval() AS meanwhile \gset
FETCH 1 FROM c \gset second_
FETCH 1 FROM c \gset third_
SELECT :first_x > :before_cursor AS first_above_earlier_ids,
       :first_x < :meanwhile AS first_below_the_id_issued_after_its_block,
       :first_x < :second_x AND :second_x < :third_x AS increasing,
       :meanwhile NOT IN (:second_x, :third_x) AS distinct_from_the_rows;
COMMIT;

DROP TABLE ev;
