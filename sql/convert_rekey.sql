-- snowflake_convert_column(..., time_column): rows kept by a conversion get
-- ids made from their time.  Each id decodes to its row's time to the
-- millisecond (rows beyond a millisecond's sequence numbers spill into the
-- next ones), the ids order the rows by (time, old key), every referencing
-- column follows, and the ids carry this node's identity at times before
-- snowflake_status.identity_since.  Refusals change nothing.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS snowflake;
RESET client_min_messages;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO';
\set VERBOSITY default
\set SHOW_CONTEXT never

-- Helpers.  refused(call): the error of a call that must fail, with times
-- of this run and ids masked (T, N); a call that succeeds is undone.
-- run(call): its statements, masked.
CREATE FUNCTION pg_temp.masked(t text) RETURNS text LANGUAGE sql AS $$
    SELECT regexp_replace(regexp_replace(t, '\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\+00', 'T', 'g'),
                          '\d{16,}', 'N', 'g')
$$;
CREATE FUNCTION pg_temp.refused(call text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    st text; msg text; det text; hnt text;
BEGIN
    BEGIN
        EXECUTE call;
        RAISE EXCEPTION USING ERRCODE = 'SFNOT', MESSAGE = 'NOT REFUSED: ' || call;
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
                                det = PG_EXCEPTION_DETAIL, hnt = PG_EXCEPTION_HINT;
    END;
    IF st = 'SFNOT' THEN
        RETURN NEXT msg;
        RETURN;
    END IF;
    RETURN NEXT 'ERROR ' || st || ': ' || pg_temp.masked(msg);
    IF det <> '' THEN
        RETURN NEXT 'DETAIL: ' || pg_temp.masked(det);
    END IF;
    IF hnt <> '' THEN
        RETURN NEXT 'HINT: ' || hnt;
    END IF;
END
$$;
CREATE FUNCTION pg_temp.run(call text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE s text;
BEGIN
    FOR s IN EXECUTE call LOOP
        RETURN NEXT pg_temp.masked(s);
    END LOOP;
END
$$;
-- What every table and constraint looks like, to show that refusals and dry
-- runs change nothing.
CREATE FUNCTION pg_temp.state() RETURNS text LANGUAGE sql AS $$
    SELECT md5(string_agg(x, E'\n' ORDER BY x)) FROM (
        SELECT format('%s %s %s %s', c.oid::regclass, a.attname, format_type(a.atttypid, a.atttypmod),
                      pg_get_expr(d.adbin, d.adrelid)) AS x
        FROM pg_class c
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
        WHERE c.relkind IN ('r', 'p') AND c.relnamespace = 'public'::regnamespace
        UNION ALL
        SELECT format('%s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
        FROM pg_constraint WHERE connamespace = 'public'::regnamespace) s
$$;

-- ===================================================================
-- A shop: orders keyed by serial, order lines and notes that reference
-- them, one order referencing another (a replacement), and 5,000 orders
-- placed in one millisecond: more than its 4,096 sequence numbers.
-- ===================================================================
CREATE TABLE orders (
    id serial PRIMARY KEY,
    placed_at timestamptz NOT NULL,
    replaces integer REFERENCES orders,
    customer text NOT NULL);
CREATE TABLE lines (
    order_id integer NOT NULL REFERENCES orders ON DELETE CASCADE,
    line smallint NOT NULL,
    PRIMARY KEY (order_id, line));
CREATE TABLE line_notes (
    id bigserial PRIMARY KEY,
    order_id integer NOT NULL,
    line smallint NOT NULL,
    FOREIGN KEY (order_id, line) REFERENCES lines);
COMMENT ON CONSTRAINT lines_order_id_fkey ON lines IS 'every line belongs to an order';
-- Old keys in another order than the times: the times decide.
INSERT INTO orders (placed_at, customer)
SELECT '2025-03-01 00:00:00+00'::timestamptz - g * interval '1 minute 0.0007 s', 'c' || g
FROM generate_series(1, 1000) g;
INSERT INTO orders (placed_at, customer)
SELECT '2025-02-01 12:00:00.000250+00', 'rush ' || g FROM generate_series(1, 5000) g;
UPDATE orders SET replaces = id - 1 WHERE id % 100 = 0;
INSERT INTO lines SELECT o.id, l FROM orders o, generate_series(1, 2) l;
INSERT INTO line_notes (order_id, line) SELECT order_id, line FROM lines WHERE line = 2 AND order_id % 7 = 0;
CREATE TABLE before AS
    SELECT o.id AS old_id, o.placed_at, o.customer, r.customer AS replaces_customer,
           (SELECT count(*) FROM lines l WHERE l.order_id = o.id) AS lines,
           (SELECT count(*) FROM line_notes n WHERE n.order_id = o.id) AS notes
    FROM orders o LEFT JOIN orders r ON r.id = o.replaces;

-- The dry run: the statements, and a NOTICE with what would happen (how
-- many rows, their time span, how far rows spill), changing nothing.
SELECT pg_temp.state() AS state_before \gset
SELECT * FROM pg_temp.run($$SELECT * FROM snowflake_convert_column('orders', 'id', dry_run => true, time_column => 'placed_at')$$);
SELECT pg_temp.state() = :'state_before' AS dry_run_changed_nothing,
       (SELECT count(*) FROM orders WHERE id > 10000) AS rekeyed_rows;

-- The conversion.
BEGIN;
SELECT count(*) AS statements
FROM snowflake_convert_column('orders', 'id', time_column => 'placed_at');
COMMIT;

-- Every row's id decodes to its time, to the millisecond, except the rows
-- of the crowded millisecond beyond its 4,096 sequence numbers, which take
-- the next one; the id's node is this node's.
SELECT count(*) AS orders,
       count(*) FILTER (WHERE snowflake_timestamp(id) = date_trunc('milliseconds', placed_at)) AS to_the_ms,
       count(*) FILTER (WHERE snowflake_timestamp(id) = date_trunc('milliseconds', placed_at) + interval '1 ms') AS spilled_1ms,
       count(DISTINCT (p.datacenter_id, p.worker_id)) AS nodes,
       min(p.datacenter_id) AS datacenter_id, min(p.worker_id) AS worker_id
FROM orders, LATERAL snowflake_parse(id) p;
-- Every id is below snowflake_min_id(identity_since), so below every id this
-- node issues under its identity.
SELECT max(id) < (SELECT snowflake_min_id(identity_since) FROM snowflake_status) AS before_identity_since,
       max(id) < snowflake_nextval() AS below_new_ids
FROM orders;
-- Ordering by id is ordering by (time, old key).
SELECT count(*) AS out_of_order
FROM (SELECT b.old_id, lag(b.old_id) OVER (ORDER BY o.id) AS prev_old,
             o.placed_at, lag(o.placed_at) OVER (ORDER BY o.id) AS prev_t
      FROM orders o JOIN before b USING (customer)) s
WHERE (placed_at, old_id) < (prev_t, prev_old);
-- Every reference followed its row: lines, notes through lines, the
-- self-reference; the constraints are back, with their comment.
SELECT count(*) AS orders_compared,
       count(*) FILTER (WHERE (SELECT count(*) FROM lines l WHERE l.order_id = o.id) = b.lines
                          AND (SELECT count(*) FROM line_notes n WHERE n.order_id = o.id) = b.notes
                          AND (SELECT r.customer FROM orders r WHERE r.id = o.replaces) IS NOT DISTINCT FROM b.replaces_customer)
         AS references_intact
FROM orders o JOIN before b USING (customer);
SELECT conrelid::regclass, conname, pg_get_constraintdef(oid), obj_description(oid, 'pg_constraint')
FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace ORDER BY 1, 2;
SELECT table_name, column_name, data_type, column_default
FROM information_schema.columns
WHERE table_name IN ('orders', 'lines', 'line_notes') AND column_name IN ('id', 'order_id', 'replaces')
ORDER BY 1, 2;
-- The map is gone with its statement.
SELECT to_regclass('pg_temp.snowflake_rekey_map') AS map_left_behind;

-- New rows get live ids, above every re-keyed one.
INSERT INTO orders (placed_at, customer) VALUES (now(), 'today') RETURNING id > (SELECT max(id) FROM orders WHERE customer <> 'today') AS above_rekeyed;

-- Converting again: every kept key is its new key already, and a key made
-- since identity_since is kept; nothing changes, not even for rows whose
-- time was moved since (a key that is a snowflake id is kept whatever its
-- row's time says).
CREATE TABLE snapshot AS SELECT id, customer FROM orders;
UPDATE orders SET placed_at = placed_at + interval '3 days' WHERE customer <> 'today';
SELECT count(*) AS statements FROM snowflake_convert_column('orders', 'id', time_column => 'placed_at');
SELECT count(*) AS changed FROM orders o JOIN snapshot s USING (customer) WHERE o.id <> s.id;
DROP TABLE snapshot, before, line_notes, lines, orders;

-- ===================================================================
-- A column converted without time_column earlier: its old values are
-- re-keyed, the ids made since are kept.  A timestamp without time zone is
-- read in the time zone the call names (UTC unless told), never in the
-- session's TimeZone: run again in another zone, it changes nothing.
-- ===================================================================
CREATE TABLE events (id bigserial PRIMARY KEY, at timestamp NOT NULL, what text);
INSERT INTO events (at, what) VALUES ('2025-06-01 10:00:00', 'old a'), ('2025-06-01 09:00:00', 'old b');
SELECT count(*) FROM snowflake_convert_column('events', 'id');
INSERT INTO events (at, what) VALUES (localtimestamp, 'new');
SELECT id AS new_id FROM events WHERE what = 'new' \gset
SET TimeZone = 'Asia/Tokyo';
SELECT count(*) FROM snowflake_convert_column('events', 'id', time_column => 'at', time_zone => 'Europe/Berlin');
SELECT what, snowflake_timestamp(id) AT TIME ZONE 'Europe/Berlin' = at AS decodes_to_at,
       id = :new_id AS kept
FROM events ORDER BY id;
CREATE TABLE snapshot AS SELECT id, what FROM events;
SET TimeZone = 'UTC';
SELECT count(*) FROM snowflake_convert_column('events', 'id', time_column => 'at');
SELECT count(*) AS changed FROM events e JOIN snapshot s USING (what) WHERE e.id <> s.id;
DROP TABLE snapshot, events;
-- The session's TimeZone changes nothing: converted under Europe/Berlin,
-- run again under UTC, no key changes.
CREATE TABLE visits (id serial PRIMARY KEY, at timestamp NOT NULL, who text);
INSERT INTO visits (at, who) VALUES ('2025-07-01 10:00:00', 'a'), ('2025-07-01 23:30:00', 'b'), ('2025-07-02 00:30:00', 'c');
SET TimeZone = 'Europe/Berlin';
SELECT count(*) FROM snowflake_convert_column('visits', 'id', time_column => 'at');
CREATE TABLE snapshot AS SELECT id, who FROM visits;
SET TimeZone = 'UTC';
SELECT count(*) FROM snowflake_convert_column('visits', 'id', time_column => 'at');
SELECT count(*) FILTER (WHERE v.id <> s.id) AS changed,
       bool_and(snowflake_timestamp(v.id) = v.at AT TIME ZONE 'UTC') AS read_in_utc
FROM visits v JOIN snapshot s USING (who);
DROP TABLE snapshot, visits;

-- A new key is never one a row keeps: here a row whose key is an id of this
-- node's identity (made before it moved away and back, say) and a row of
-- the sequence in the same millisecond, which would get the same id.  No
-- unique index would stop the duplicate: refused, nothing changed.
CREATE TABLE clash (id bigserial NOT NULL, at timestamptz NOT NULL, what text);
INSERT INTO clash
SELECT snowflake_make_id('2025-05-01 12:00:00+00', datacenter_id, worker_id, 0), '2025-05-01 12:00:00+00', 'an id already'
FROM snowflake_status;
INSERT INTO clash VALUES (7, '2025-05-01 12:00:00+00', 'a sequence value');
SELECT pg_temp.refused($$SELECT snowflake_convert_column('clash', 'id', time_column => 'at')$$);
SELECT what, id < 1000 AS sequence_value, count(*) OVER (PARTITION BY id) AS rows_with_its_key
FROM clash ORDER BY what;
DROP TABLE clash;

-- ===================================================================
-- Late rows: rows made at or after identity_since, on a table still in
-- use.  Refused unless late_rows => 'nextval', which gives them ids from
-- snowflake_nextval() in the order of their time, in the same call; the
-- NOTICE says how far those ids are from their time.  A table of old and
-- new keys, named by the call, is kept; a materialized view over a
-- re-keyed column is named.
-- ===================================================================
CREATE TABLE feed (id serial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), what text);
CREATE TABLE feed_tags (feed_id integer REFERENCES feed, tag text);
INSERT INTO feed (at, what) VALUES ('2025-03-01 08:00:00+00', 'old 1'), ('2025-03-01 07:00:00+00', 'old 2');
INSERT INTO feed (what) VALUES ('live 1'), ('live 2');
INSERT INTO feed_tags SELECT id, what FROM feed;
SELECT pg_temp.refused($$SELECT snowflake_convert_column('feed', 'id', time_column => 'at')$$);
-- (Their NOTICEs tell times of this run: TAP test 022 reads them.)
SET client_min_messages = warning;
SELECT count(*) AS statements FROM snowflake_convert_column('feed', 'id', time_column => 'at', late_rows => 'nextval', dry_run => true);
SELECT max(id) AS before_max FROM feed \gset
SELECT snowflake_nextval() AS floor_id \gset
SELECT s FROM snowflake_convert_column('feed', 'id', time_column => 'at', late_rows => 'nextval', map_table => 'feed_keys') s
WHERE s LIKE 'CREATE TABLE%' OR s LIKE 'COMMENT ON TABLE%';
RESET client_min_messages;
SELECT what, snowflake_timestamp(id) = at AS decodes_to_at, id > :floor_id AS from_nextval,
       (SELECT count(*) FROM feed_tags t WHERE t.feed_id = f.id AND t.tag = f.what) AS tags
FROM feed f ORDER BY id;
SELECT count(*) AS mapped, count(*) FILTER (WHERE old_id <= :before_max) AS from_old_keys,
       obj_description('public.feed_keys'::regclass) AS comment
FROM feed_keys;
CREATE MATERIALIZED VIEW feed_mv AS SELECT id FROM feed;
CREATE VIEW tag_v AS SELECT feed_id FROM feed_tags;
CREATE MATERIALIZED VIEW tag_mv AS SELECT feed_id FROM tag_v;
INSERT INTO feed (id, at, what) VALUES (1000, '2025-03-02 00:00:00+00', 'queued writer');
BEGIN;
SELECT count(*) FROM snowflake_convert_column('feed', 'id', time_column => 'at');
ROLLBACK;
DELETE FROM feed WHERE id = 1000;
-- Run again, nothing changes (and no NOTICE for the views).
CREATE TABLE snapshot AS SELECT id, what FROM feed;
SELECT count(*) FROM snowflake_convert_column('feed', 'id', time_column => 'at', late_rows => 'nextval');
SELECT count(*) AS changed FROM feed f JOIN snapshot s USING (what) WHERE f.id <> s.id;
-- The map table must be new; the arguments must make sense.
SELECT pg_temp.refused($$SELECT snowflake_convert_column('feed', 'id', time_column => 'at', map_table => 'feed_keys')$$);
SELECT pg_temp.refused($$SELECT snowflake_convert_column('feed', 'id', time_column => 'at', late_rows => 'maybe')$$);
SELECT pg_temp.refused($$SELECT snowflake_convert_column('feed', 'id', time_column => 'at', time_zone => NULL)$$);
DROP MATERIALIZED VIEW tag_mv, feed_mv;
DROP VIEW tag_v;
DROP TABLE snapshot, feed_keys, feed_tags, feed;
CREATE TABLE ts_t (id serial PRIMARY KEY, at timestamp NOT NULL);
SELECT pg_temp.refused($$SELECT snowflake_convert_column('ts_t', 'id', time_column => 'at', time_zone => 'Mars/Olympus')$$);
DROP TABLE ts_t;

-- ===================================================================
-- An identity column, a partitioned table (by another column) with a
-- partitioned child, and an inheritance child.
-- ===================================================================
CREATE TABLE accounts (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, opened timestamptz NOT NULL);
INSERT INTO accounts (opened) SELECT '2024-01-01'::timestamptz + g * interval '1 day' FROM generate_series(1, 50) g;
CREATE TABLE postings (id bigserial, account integer REFERENCES accounts, on_day date NOT NULL,
                       PRIMARY KEY (id, on_day)) PARTITION BY RANGE (on_day);
CREATE TABLE postings_2024 PARTITION OF postings FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE postings_rest PARTITION OF postings DEFAULT;
INSERT INTO postings (account, on_day) SELECT a, '2024-06-01'::date + (a % 300) FROM generate_series(1, 50) a, generate_series(1, 3);
CREATE TABLE audit (account integer REFERENCES accounts);
CREATE TABLE audit_2024 () INHERITS (audit);
INSERT INTO audit_2024 SELECT a FROM generate_series(1, 50, 5) a;
SELECT * FROM pg_temp.run($$SELECT * FROM snowflake_convert_column('accounts', 'id', time_column => 'opened')$$);
SELECT count(*) FILTER (WHERE snowflake_timestamp(id) = opened) AS accounts_at_their_time,
       (SELECT count(*) FROM postings p JOIN accounts a ON a.id = p.account) AS postings_joined,
       (SELECT count(*) FROM audit_2024 u JOIN accounts a ON a.id = u.account) AS audit_joined
FROM accounts;
DROP TABLE audit_2024, audit, postings, accounts;

-- ===================================================================
-- Refusals: each changes nothing.
-- ===================================================================
CREATE TABLE t (id serial PRIMARY KEY, made timestamptz, day date, ref integer);
INSERT INTO t (made, day) SELECT '2025-01-01'::timestamptz + g * interval '1 hour', '2025-01-01' FROM generate_series(1, 10) g;
SELECT pg_temp.state() AS state_before \gset
SELECT pg_temp.refused($$SELECT snowflake_convert_column('t', 'id', time_column => 'nope')$$);
SELECT pg_temp.refused($$SELECT snowflake_convert_column('t', 'id', time_column => 'id')$$);
SELECT pg_temp.refused($$SELECT snowflake_convert_column('t', 'id', time_column => 'day')$$);
-- A row without a time, a row before the epoch, a row made at or after
-- identity_since (now): no id can be made for them.
UPDATE t SET made = NULL WHERE id IN (3, 4);
SELECT pg_temp.refused($$SELECT snowflake_convert_column('t', 'id', time_column => 'made')$$);
UPDATE t SET made = '2009-12-31 23:00:00+00' WHERE id IN (3, 4);
SELECT pg_temp.refused($$SELECT snowflake_convert_column('t', 'id', time_column => 'made')$$);
UPDATE t SET made = now() WHERE id = 3;
UPDATE t SET made = 'infinity' WHERE id = 4;
SELECT pg_temp.refused($$SELECT snowflake_convert_column('t', 'id', time_column => 'made', dry_run => true)$$);
UPDATE t SET made = '2025-05-05 00:00:00+00' WHERE id IN (3, 4);
-- Rows crowded into the last millisecond before identity_since would spill
-- into it.
INSERT INTO t (made) SELECT date_trunc('milliseconds', identity_since) - interval '1 ms'
FROM snowflake_status, generate_series(1, 4097);
SELECT pg_temp.refused($$SELECT snowflake_convert_column('t', 'id', time_column => 'made', dry_run => true)$$);
SELECT pg_temp.refused($$SELECT snowflake_convert_column('t', 'id', time_column => 'made')$$);
DELETE FROM t WHERE id > 10;
-- A trigger or a rule on UPDATE, forced row security.
CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$;
CREATE TRIGGER t_touch BEFORE UPDATE ON t FOR EACH ROW EXECUTE FUNCTION touch();
CREATE RULE t_log AS ON UPDATE TO t DO ALSO NOTIFY t_changed;
ALTER TABLE t ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
SELECT pg_temp.refused($$SELECT snowflake_convert_column('t', 'id', time_column => 'made')$$);
-- Disabled, as the HINT says, in the same transaction: converted.
BEGIN;
ALTER TABLE t DISABLE TRIGGER t_touch, DISABLE RULE t_log, NO FORCE ROW LEVEL SECURITY;
SELECT count(*) AS statements FROM snowflake_convert_column('t', 'id', time_column => 'made');
ROLLBACK;
DROP TRIGGER t_touch ON t;
DROP RULE t_log ON t;
DROP FUNCTION touch();
ALTER TABLE t NO FORCE ROW LEVEL SECURITY, DISABLE ROW LEVEL SECURITY;
-- Keys that are not unique.
ALTER TABLE t DROP CONSTRAINT t_pkey;
INSERT INTO t (id, made) VALUES (5, '2025-01-02 00:00:00+00');
SELECT pg_temp.refused($$SELECT snowflake_convert_column('t', 'id', time_column => 'made')$$);
DELETE FROM t WHERE id = 5 AND made = '2025-01-02 00:00:00+00';
ALTER TABLE t ADD PRIMARY KEY (id);
SELECT pg_temp.state() = :'state_before' AS refusals_changed_nothing;
DROP TABLE t;
-- A referencing column that is a partition key: re-keying would move rows
-- between partitions (bigint already, so only the re-key is in the way).
CREATE TABLE t2 (id bigserial PRIMARY KEY, made timestamptz NOT NULL);
CREATE TABLE by_ref (ref bigint NOT NULL REFERENCES t2, PRIMARY KEY (ref)) PARTITION BY RANGE (ref);
SELECT pg_temp.refused($$SELECT snowflake_convert_column('t2', 'id', time_column => 'made')$$);
SELECT count(*) AS without_time_column FROM snowflake_convert_column('t2', 'id', dry_run => true);
DROP TABLE by_ref, t2;
