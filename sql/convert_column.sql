-- snowflake_convert_column (1.3): moving existing serial / identity /
-- nextval() columns, and the foreign keys that reference them, onto
-- DEFAULT snowflake_nextval() as bigint.  Every kind of column it handles,
-- what it returns, what it leaves behind, and every refusal with its
-- SQLSTATE, message, DETAIL and HINT.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS snowflake;
RESET client_min_messages;
\set VERBOSITY default
\set SHOW_CONTEXT never

-- Helpers.  refused(call) runs a call that must fail and shows the error's
-- SQLSTATE, message, DETAIL and HINT (the next id, which varies, masked as
-- N).  cols(table) shows a table's columns as the converter sees them.
CREATE FUNCTION pg_temp.refused(call text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    st text; msg text; det text; hnt text;
BEGIN
    BEGIN
        EXECUTE call;
        RETURN NEXT 'NOT REFUSED: ' || call;
        RETURN;
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
                                det = PG_EXCEPTION_DETAIL, hnt = PG_EXCEPTION_HINT;
    END;
    RETURN NEXT 'ERROR ' || st || ': ' || msg;
    IF det <> '' THEN
        RETURN NEXT 'DETAIL: ' || regexp_replace(det, 'issues is above \d+', 'issues is above N');
    END IF;
    IF hnt <> '' THEN
        RETURN NEXT 'HINT: ' || hnt;
    END IF;
END
$$;
CREATE FUNCTION pg_temp.cols(t regclass)
RETURNS TABLE (col name, type text, ident "char", notnull boolean, "default" text)
LANGUAGE sql AS $$
    SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attidentity, a.attnotnull,
           pg_get_expr(d.adbin, d.adrelid)
    FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE a.attrelid = t AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
$$;
-- The schema of every user table, sequence and constraint, to show that a
-- dry run or a refusal changes nothing.
CREATE FUNCTION pg_temp.schema_state() RETURNS text LANGUAGE sql AS $$
    SELECT md5(string_agg(x, E'\n' ORDER BY x)) FROM (
        SELECT format('%s %s %s %s %s %s', c.oid::regclass, a.attname, format_type(a.atttypid, a.atttypmod),
                      a.attidentity, a.attnotnull, pg_get_expr(d.adbin, d.adrelid)) AS x
        FROM pg_class c
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
        WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S')
          AND c.relnamespace <> ALL (ARRAY['pg_catalog'::regnamespace, 'information_schema'::regnamespace])
        UNION ALL
        SELECT format('%s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
        FROM pg_constraint WHERE conrelid <> 0
          AND connamespace <> ALL (ARRAY['pg_catalog'::regnamespace, 'information_schema'::regnamespace])) s
$$;

-- ===================================================================
-- serial, with a chain of foreign keys: orders <- items <- item_notes,
-- where items' key is (order_id, line) and item_notes references both.
-- ===================================================================
CREATE TABLE orders (id serial PRIMARY KEY, note text NOT NULL);
CREATE TABLE items (
    order_id integer NOT NULL REFERENCES orders,
    line smallint NOT NULL,
    PRIMARY KEY (order_id, line));
CREATE TABLE item_notes (
    id bigserial PRIMARY KEY,
    order_id integer NOT NULL,
    line smallint NOT NULL,
    body text,
    FOREIGN KEY (order_id, line) REFERENCES items);
INSERT INTO orders (note) SELECT 'order ' || g FROM generate_series(1, 100) g;
INSERT INTO items SELECT o, l FROM generate_series(1, 100) o, generate_series(1, 3) l;
INSERT INTO item_notes (order_id, line, body) SELECT order_id, line, 'n' FROM items WHERE line = 2;

-- The dry run says what it would do, in order, and does none of it.
SELECT pg_temp.schema_state() AS before \gset
SELECT * FROM snowflake_convert_column('orders', 'id', dry_run => true);
SELECT pg_temp.schema_state() = :'before' AS dry_run_changed_nothing;
SELECT last_value FROM orders_id_seq;

-- The real run returns exactly the statements it ran.
SELECT * FROM snowflake_convert_column('orders', 'id');
SELECT * FROM pg_temp.cols('orders');
SELECT * FROM pg_temp.cols('items');
SELECT * FROM pg_temp.cols('item_notes');
-- drop_sequence was false: the sequence is still there, still owned by the
-- column, and still works.
SELECT pg_get_serial_sequence('orders', 'id') AS kept_sequence, nextval('orders_id_seq') AS seq_next;

-- New rows get snowflake ids above every old id; old ids still join.
INSERT INTO orders (note) SELECT 'new ' || g FROM generate_series(1, 50) g;
INSERT INTO items SELECT o.id, l FROM orders o, generate_series(1, 3) l WHERE o.note LIKE 'new%';
INSERT INTO item_notes (order_id, line, body) SELECT order_id, line, 'new' FROM items WHERE order_id > 100 AND line = 2;
SELECT count(*) AS new_orders,
       min(id) > (SELECT max(id) FROM orders WHERE note LIKE 'order%') AS above_old_ids,
       min(id) > 4294967296 AS beyond_integer,
       bool_and((snowflake_parse(id)).worker_id = 25) AS this_node
FROM orders WHERE note LIKE 'new%';
SELECT count(*) AS joined_rows, count(DISTINCT o.id) AS orders
FROM orders o JOIN items i ON i.order_id = o.id JOIN item_notes n ON (n.order_id, n.line) = (i.order_id, i.line);
SELECT count(*) AS old_orders_with_items FROM orders o WHERE o.id <= 100 AND EXISTS (SELECT FROM items i WHERE i.order_id = o.id);
-- The foreign keys are still enforced.
INSERT INTO items VALUES (4294967296, 1);
INSERT INTO item_notes (order_id, line) VALUES (1, 9);

-- Converting again: nothing left to do.
SELECT * FROM snowflake_convert_column('orders', 'id');

-- The statements are runnable by hand: a fresh copy, converted with \gexec
-- from the dry run's output, ends up exactly like one converted by the call.
CREATE TABLE by_hand (id serial PRIMARY KEY, parent integer REFERENCES by_hand);
CREATE TABLE by_call (id serial PRIMARY KEY, parent integer REFERENCES by_call);
BEGIN;
SELECT * FROM snowflake_convert_column('by_hand', 'id', dry_run => true) \gexec
COMMIT;
SELECT count(*) FROM snowflake_convert_column('by_call', 'id');
SELECT (SELECT array_agg(c ORDER BY c) FROM pg_temp.cols('by_hand') c)::text
     = (SELECT array_agg(c ORDER BY c) FROM pg_temp.cols('by_call') c)::text AS same_result;
SELECT * FROM pg_temp.cols('by_hand');

-- ===================================================================
-- bigserial and smallserial; drop_sequence.
-- ===================================================================
CREATE TABLE big (id bigserial PRIMARY KEY, v int);
CREATE TABLE small (id smallserial PRIMARY KEY, v int);
CREATE TABLE small_ref (small_id smallint REFERENCES small);
INSERT INTO big (v) SELECT g FROM generate_series(1, 10) g;
INSERT INTO small (v) SELECT g FROM generate_series(1, 10) g;
INSERT INTO small_ref SELECT id FROM small;
-- bigint already: only the default changes (no rewrite), and the sequence
-- goes since nothing else uses it.
SELECT * FROM snowflake_convert_column('big', 'id', drop_sequence => true);
SELECT * FROM pg_temp.cols('big');
SELECT to_regclass('big_id_seq') AS big_id_seq;
SELECT * FROM snowflake_convert_column('small', 'id', drop_sequence => true);
SELECT * FROM pg_temp.cols('small');
SELECT * FROM pg_temp.cols('small_ref');
SELECT to_regclass('small_id_seq') AS small_id_seq;
INSERT INTO small (v) VALUES (11) RETURNING id > 32767 AS beyond_smallint;
INSERT INTO small_ref SELECT id FROM small WHERE v = 11;
SELECT count(*) FROM small_ref JOIN small ON small.id = small_ref.small_id;

-- ===================================================================
-- IDENTITY, ALWAYS and BY DEFAULT: the identity property goes (and with
-- it, as PostgreSQL does it, its sequence).
-- ===================================================================
CREATE TABLE ident_always (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text);
CREATE TABLE ident_default (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, v text);
CREATE TABLE ident_ref (a integer REFERENCES ident_always, d bigint REFERENCES ident_default);
INSERT INTO ident_always (v) VALUES ('a'), ('b');
INSERT INTO ident_default (v) VALUES ('a'), ('b');
INSERT INTO ident_ref VALUES (1, 1), (2, 2);
SELECT * FROM snowflake_convert_column('ident_always', 'id');
SELECT * FROM pg_temp.cols('ident_always');
SELECT * FROM pg_temp.cols('ident_ref');
SELECT to_regclass('ident_always_id_seq') AS identity_sequence;
-- drop_sequence => true says nothing more: the sequence goes anyway.
SELECT * FROM snowflake_convert_column('ident_default', 'id', drop_sequence => true);
SELECT * FROM pg_temp.cols('ident_default');
-- No identity any more: an explicit id is accepted, the default is a
-- snowflake id.
INSERT INTO ident_always (id, v) VALUES (3, 'explicit');
INSERT INTO ident_always (v) VALUES ('c');
INSERT INTO ident_default (v) VALUES ('c');
SELECT count(*) FILTER (WHERE id > 4294967296) AS snowflake_ids, count(*) AS all_rows FROM ident_always;
SELECT count(*) FILTER (WHERE id > 4294967296) AS snowflake_ids, count(*) AS all_rows FROM ident_default;

-- ===================================================================
-- A plain DEFAULT nextval('seq'), with no dependency record (the sequence
-- is not owned by the column), in another schema; and a sequence shared
-- by two tables.
-- ===================================================================
CREATE SCHEMA conv_seqs;
CREATE SCHEMA conv_app;
CREATE SEQUENCE conv_seqs.solo;
CREATE TABLE conv_app.solo_t (id integer NOT NULL DEFAULT nextval('conv_seqs.solo') PRIMARY KEY);
INSERT INTO conv_app.solo_t DEFAULT VALUES;
SELECT pg_get_serial_sequence('conv_app.solo_t', 'id') IS NULL AS not_owned;
SELECT * FROM snowflake_convert_column('conv_app.solo_t', 'id');
SELECT to_regclass('conv_seqs.solo') AS kept;
SELECT * FROM snowflake_convert_column('conv_app.solo_t', 'id', drop_sequence => true);

CREATE SEQUENCE conv_seqs.solo2;
CREATE TABLE conv_app.solo2_t (id bigint DEFAULT nextval('conv_seqs.solo2'));
SELECT * FROM snowflake_convert_column('conv_app.solo2_t', 'id', drop_sequence => true);
SELECT to_regclass('conv_seqs.solo2') AS dropped;

-- Shared: converting one table keeps the sequence for the other, even with
-- drop_sequence, and says why.
CREATE SEQUENCE conv_seqs.shared;
CREATE TABLE conv_app.shared_a (id integer PRIMARY KEY DEFAULT nextval('conv_seqs.shared'));
CREATE TABLE conv_app.shared_b (id integer PRIMARY KEY DEFAULT nextval('conv_seqs.shared'));
INSERT INTO conv_app.shared_a DEFAULT VALUES;
INSERT INTO conv_app.shared_b DEFAULT VALUES;
SELECT * FROM snowflake_convert_column('conv_app.shared_a', 'id', drop_sequence => true);
SELECT * FROM pg_temp.cols('conv_app.shared_b');
INSERT INTO conv_app.shared_b DEFAULT VALUES RETURNING id;
-- The last user converted: now it goes.
SELECT * FROM snowflake_convert_column('conv_app.shared_b', 'id', drop_sequence => true);
SELECT to_regclass('conv_seqs.shared') AS shared_dropped;

-- A serial's sequence that another table also uses is kept too.
CREATE TABLE serial_owner (id serial PRIMARY KEY);
CREATE TABLE serial_borrower (id integer DEFAULT nextval('serial_owner_id_seq'));
SELECT * FROM snowflake_convert_column('serial_owner', 'id', drop_sequence => true);
-- The other way round: the borrower converts; the sequence stays with its owner.
CREATE TABLE serial_owner2 (id serial PRIMARY KEY);
CREATE TABLE serial_borrower2 (id integer DEFAULT nextval('serial_owner2_id_seq'));
SELECT * FROM snowflake_convert_column('serial_borrower2', 'id', drop_sequence => true);

-- ===================================================================
-- Names: mixed case, names that need quotes, quotes and semicolons in
-- names, a temp table, and search_path games.
-- ===================================================================
CREATE SCHEMA "Sales Dept";
CREATE TABLE "Sales Dept"."Order" ("ID" serial PRIMARY KEY, "Note" text);
CREATE TABLE "Sales Dept"."Order Line" ("Order ID" integer REFERENCES "Sales Dept"."Order", "select" int);
INSERT INTO "Sales Dept"."Order" ("Note") VALUES ('x');
INSERT INTO "Sales Dept"."Order Line" VALUES (1, 1);
-- The column name is taken as written (case and all), like pg_get_serial_sequence's.
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('"Sales Dept"."Order"', 'id')$$);
SELECT * FROM snowflake_convert_column('"Sales Dept"."Order"', 'ID');
SELECT * FROM pg_temp.cols('"Sales Dept"."Order Line"');

CREATE SCHEMA "we'ird ""schema""";
CREATE TABLE "we'ird ""schema""".";drop table orders; --" ("sel""ect" serial PRIMARY KEY, "x'); DROP TABLE items; --" int);
CREATE TABLE "we'ird ""schema"""."ref)" (r integer REFERENCES "we'ird ""schema""".";drop table orders; --");
SELECT * FROM snowflake_convert_column('"we''ird ""schema""".";drop table orders; --"', 'sel"ect', dry_run => true);
SELECT * FROM snowflake_convert_column('"we''ird ""schema""".";drop table orders; --"', 'sel"ect', drop_sequence => true);
SELECT * FROM pg_temp.cols('"we''ird ""schema"""."ref)"');
SELECT to_regclass('orders') IS NOT NULL AS orders_still_there, to_regclass('items') IS NOT NULL AS items_still_there;

-- Temp table, with the same name as a table in public: 'twin' resolves to
-- the temp table (the caller's search_path, where pg_temp comes first),
-- 'public.twin' to the other; the statements name pg_temp explicitly.
CREATE TABLE public.twin (id serial PRIMARY KEY);
CREATE TEMP TABLE twin (id serial PRIMARY KEY, child_of integer REFERENCES twin);
SELECT * FROM snowflake_convert_column('twin', 'id');
SELECT * FROM pg_temp.cols('pg_temp.twin');
SELECT * FROM pg_temp.cols('public.twin');
SELECT * FROM snowflake_convert_column('public.twin', 'id');

-- A hostile search_path: a schema early in the path with look-alikes of
-- the functions the converter uses.  The converter runs with its own
-- search_path and qualifies everything; the default it sets names the
-- extension's schema, so inserts under the hostile path get real ids.
CREATE SCHEMA evil;
CREATE FUNCTION evil.snowflake_nextval() RETURNS bigint LANGUAGE sql AS 'SELECT 1::bigint';
CREATE FUNCTION evil.nextval(regclass) RETURNS bigint LANGUAGE sql AS 'SELECT 1::bigint';
CREATE FUNCTION evil.format(text, VARIADIC text[]) RETURNS text LANGUAGE sql AS $$SELECT 'DROP TABLE orders'$$;
CREATE FUNCTION evil.quote_ident(text) RETURNS text LANGUAGE sql AS $$SELECT 'orders'$$;
CREATE FUNCTION evil.pg_has_role(oid, text) RETURNS boolean LANGUAGE sql AS 'SELECT true';
CREATE FUNCTION evil.max_sfunc(bigint, bigint) RETURNS bigint LANGUAGE sql AS 'SELECT -1::bigint';
CREATE AGGREGATE evil.max(bigint) (SFUNC = evil.max_sfunc, STYPE = bigint);
CREATE TABLE evil.pg_attribute (attrelid oid, attname name, attnum int2, atttypid oid);
CREATE TABLE evil_target (id serial PRIMARY KEY, v int);
CREATE TABLE evil_ref (target_id integer REFERENCES evil_target);
INSERT INTO evil_target (v) VALUES (1);
INSERT INTO evil_ref VALUES (1);
SET search_path = evil, pg_catalog, public;
SELECT * FROM snowflake_convert_column('evil_target', 'id');
INSERT INTO evil_target (v) VALUES (2) RETURNING id > 4294967296 AS real_snowflake_id;
SET search_path = '';
SELECT * FROM public.snowflake_convert_column('public.evil_target', 'id');
SELECT * FROM public.snowflake_convert_column('public.twin', 'id');
RESET search_path;
DROP SCHEMA evil CASCADE;

-- ===================================================================
-- Partitioned tables are converted through the parent; partitions and
-- inheritance children alone are refused.
-- ===================================================================
CREATE TABLE events (id serial, at date NOT NULL, kind text, PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
CREATE TABLE events_2024 PARTITION OF events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE events_later PARTITION OF events FOR VALUES FROM ('2025-01-01') TO (MAXVALUE)
    PARTITION BY RANGE (at);
CREATE TABLE events_later_a PARTITION OF events_later FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
CREATE TABLE events_later_other PARTITION OF events_later DEFAULT;
-- A partitioned table that references it (the FK lives on the parent), and
-- a plain table that references a partitioned table.
CREATE TABLE event_tags (event_id integer NOT NULL, at date NOT NULL, tag text,
    FOREIGN KEY (event_id, at) REFERENCES events) PARTITION BY LIST (tag);
CREATE TABLE event_tags_all PARTITION OF event_tags DEFAULT;
INSERT INTO events (at, kind) VALUES ('2024-05-01', 'a'), ('2026-01-01', 'a'), ('2026-01-01', 'b');
INSERT INTO event_tags SELECT id, at, 't' FROM events;
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('events_later_a', 'id')$$);
SELECT * FROM snowflake_convert_column('events', 'id', drop_sequence => true);
SELECT c.relname, p.type, p."default"
FROM pg_class c, LATERAL pg_temp.cols(c.oid) p
WHERE c.relname LIKE 'event%' AND c.relkind IN ('r', 'p') AND p.col IN ('id', 'event_id')
ORDER BY c.relname;
INSERT INTO events (at, kind) VALUES ('2024-06-01', 'a'), ('2026-02-01', 'a'), ('2026-02-01', 'z');
INSERT INTO event_tags SELECT id, at, 'new' FROM events WHERE id > 4294967296;
SELECT count(*) FILTER (WHERE e.id > 4294967296) AS new_ids, count(*) AS joined
FROM events e JOIN event_tags t ON (t.event_id, t.at) = (e.id, e.at);
-- A column in a partition key cannot change type: an integer one is refused.
CREATE TABLE by_id (id serial PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE by_id_low PARTITION OF by_id FOR VALUES FROM (0) TO (1000000);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('by_id', 'id')$$);
-- ... also when the partition key is a referencing column.
CREATE TABLE by_ref_parent (id serial PRIMARY KEY);
CREATE TABLE by_ref (parent_id integer REFERENCES by_ref_parent) PARTITION BY LIST (parent_id);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('by_ref_parent', 'id')$$);
-- A bigint one is fine (new ids need partitions of their own, or a default).
CREATE TABLE by_big (id bigserial PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE by_big_low PARTITION OF by_big FOR VALUES FROM (0) TO (1000000);
CREATE TABLE by_big_rest PARTITION OF by_big DEFAULT;
INSERT INTO by_big DEFAULT VALUES;
SELECT * FROM snowflake_convert_column('by_big', 'id');
INSERT INTO by_big DEFAULT VALUES;
SELECT tableoid::regclass AS partition, count(*) FROM by_big GROUP BY 1 ORDER BY 1;

-- Classic inheritance: through the parent, which converts the children.
CREATE TABLE inh_parent (id serial PRIMARY KEY);
CREATE TABLE inh_child (extra text) INHERITS (inh_parent);
INSERT INTO inh_child (extra) VALUES ('c');
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('inh_child', 'id')$$);
SELECT * FROM snowflake_convert_column('inh_parent', 'id');
SELECT * FROM pg_temp.cols('inh_child');

-- ===================================================================
-- Refusals.  Each changes nothing.
-- ===================================================================
SELECT pg_temp.schema_state() AS before \gset
CREATE TABLE r_text (id text DEFAULT 'x', n numeric DEFAULT nextval('conv_seqs.solo'),
                     plain integer, zero integer DEFAULT 0,
                     gen integer GENERATED ALWAYS AS (plain * 2) STORED);
CREATE DOMAIN posint AS integer CHECK (VALUE > 0);
CREATE TABLE r_domain (id posint DEFAULT nextval('conv_seqs.solo'));
-- not an integer column
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('r_text', 'id')$$);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('r_text', 'n')$$);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('r_domain', 'id')$$);
-- integer, but its values do not come from a sequence
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('r_text', 'plain')$$);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('r_text', 'zero')$$);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('r_text', 'gen')$$);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('r_text', 'xmin')$$);
-- no such column, no such table, NULLs
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('r_text', 'nope')$$);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column(0, 'id')$$);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column(NULL, 'id')$$);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('r_text', NULL)$$);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('r_text', 'id', NULL)$$);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('r_text', 'id', false, NULL)$$);
-- not a table
CREATE VIEW r_view AS SELECT * FROM orders;
CREATE MATERIALIZED VIEW r_matview AS SELECT id FROM orders;
CREATE TYPE r_type AS (id integer);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('r_view', 'id')$$);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('r_matview', 'id')$$);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('orders_id_seq', 'last_value')$$);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('orders_pkey', 'id')$$);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('r_type', 'id')$$);
DROP VIEW r_view;
DROP MATERIALIZED VIEW r_matview;
DROP TYPE r_type;

-- The existing values are not all below the next id this node issues.
CREATE TABLE r_high (id bigserial PRIMARY KEY);
INSERT INTO r_high VALUES (1), (9000000000000000000);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('r_high', 'id')$$);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('r_high', 'id', dry_run => true)$$);
SELECT * FROM pg_temp.cols('r_high');

-- Views and rules (and triggers, policies, generated columns, SQL-body
-- functions, publication column lists, row-type columns) on a column that
-- must change type: all of them are listed, wherever they are in the chain.
CREATE TABLE d_parent (id serial PRIMARY KEY);
CREATE TABLE d_child (parent_id integer REFERENCES d_parent, v int);
CREATE TABLE d_log (parent_id integer);
CREATE VIEW d_parent_view AS SELECT id FROM d_parent;
CREATE MATERIALIZED VIEW d_child_mv AS SELECT parent_id FROM d_child;
CREATE RULE d_log_rule AS ON INSERT TO d_child DO ALSO INSERT INTO d_log VALUES (new.parent_id);
CREATE RULE d_notify_rule AS ON DELETE TO d_child DO ALSO NOTIFY d_child;   -- no column: not listed
CREATE FUNCTION d_trg() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
CREATE TRIGGER d_child_upd BEFORE UPDATE OF parent_id ON d_child FOR EACH ROW EXECUTE FUNCTION d_trg();
CREATE POLICY d_pol ON d_child USING (parent_id > 0);
ALTER TABLE d_child ADD COLUMN twice bigint GENERATED ALWAYS AS (parent_id * 2) STORED;
CREATE FUNCTION d_max() RETURNS integer LANGUAGE sql BEGIN ATOMIC SELECT max(parent_id) FROM d_child; END;
CREATE TABLE d_rowtype (r d_parent);
SET client_min_messages = error;   -- (it warns that wal_level is not logical: not needed here)
CREATE PUBLICATION d_pub FOR TABLE d_child (parent_id, v);
RESET client_min_messages;
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('d_parent', 'id')$$);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('d_parent', 'id', dry_run => true)$$);
-- Out of the way, in one transaction: drop, convert, create again.
BEGIN;
DROP VIEW d_parent_view;
DROP MATERIALIZED VIEW d_child_mv;
DROP RULE d_log_rule ON d_child;
DROP TRIGGER d_child_upd ON d_child;
DROP POLICY d_pol ON d_child;
ALTER TABLE d_child DROP COLUMN twice;
DROP FUNCTION d_max();
DROP TABLE d_rowtype;
DROP PUBLICATION d_pub;
SELECT * FROM snowflake_convert_column('d_parent', 'id');
CREATE VIEW d_parent_view AS SELECT id FROM d_parent;
COMMIT;
SELECT * FROM pg_temp.cols('d_parent_view');
-- A view on a column that keeps its type (bigint already) does not stand
-- in the way: only the default changes.
CREATE TABLE d_big (id bigserial PRIMARY KEY);
CREATE VIEW d_big_view AS SELECT id FROM d_big;
SELECT * FROM snowflake_convert_column('d_big', 'id');

-- Not the owner: of the table, of a table whose column must widen, of a
-- partition, of the sequence to drop.  A plain owner converts fine.
CREATE ROLE regress_convert_alice;
CREATE ROLE regress_convert_bob;
CREATE TABLE o_mine (id serial PRIMARY KEY);
CREATE TABLE o_theirs (mine_id integer REFERENCES o_mine);
CREATE TABLE o_parted (id serial, k int, PRIMARY KEY (id, k)) PARTITION BY LIST (k);
CREATE TABLE o_parted_1 PARTITION OF o_parted FOR VALUES IN (1);
CREATE SEQUENCE o_seq;
CREATE TABLE o_plain (id bigint DEFAULT nextval('o_seq'));
CREATE TABLE o_solo (id serial PRIMARY KEY);
ALTER TABLE o_mine OWNER TO regress_convert_alice;
ALTER TABLE o_theirs OWNER TO regress_convert_bob;
ALTER TABLE o_parted OWNER TO regress_convert_alice;
ALTER TABLE o_plain OWNER TO regress_convert_alice;
ALTER TABLE o_solo OWNER TO regress_convert_alice;
SET ROLE regress_convert_bob;
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('o_mine', 'id')$$);
SET ROLE regress_convert_alice;
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('o_mine', 'id')$$);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('o_parted', 'id')$$);
SELECT * FROM pg_temp.refused($$SELECT snowflake_convert_column('o_plain', 'id', drop_sequence => true)$$);
SELECT * FROM snowflake_convert_column('o_plain', 'id');
SELECT * FROM snowflake_convert_column('o_solo', 'id', drop_sequence => true);
RESET ROLE;
SELECT * FROM pg_temp.cols('o_solo');

-- Nothing the refusals above touched has changed (the tables created for
-- them aside).
DROP TABLE r_text, r_domain, r_high;
DROP DOMAIN posint;
DROP TABLE d_big CASCADE;
DROP TABLE d_parent, d_child, d_log CASCADE;
DROP FUNCTION d_trg();
DROP TABLE o_mine, o_theirs, o_parted, o_plain, o_solo;
DROP SEQUENCE o_seq;
SELECT pg_temp.schema_state() = :'before' AS refusals_changed_nothing;

-- ===================================================================
-- All of it runs in the caller's transaction: when a statement fails half
-- way (here a CHECK constraint that the widening breaks, on the second
-- table), nothing is left changed.
-- ===================================================================
CREATE TABLE a_parent (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY);
CREATE TABLE a_child (parent_id integer REFERENCES a_parent
                      CHECK (pg_typeof(parent_id) = 'integer'::regtype));
INSERT INTO a_parent DEFAULT VALUES;
INSERT INTO a_child VALUES (1);
SELECT pg_temp.schema_state() AS before \gset
SELECT * FROM snowflake_convert_column('a_parent', 'id');
SELECT pg_temp.schema_state() = :'before' AS failed_run_changed_nothing;
SELECT * FROM pg_temp.cols('a_parent');
-- A conversion rolled back by the caller is undone as well.
ALTER TABLE a_child DROP CONSTRAINT a_child_parent_id_check;
SELECT pg_temp.schema_state() AS before \gset
BEGIN;
SELECT count(*) AS statements FROM snowflake_convert_column('a_parent', 'id');
ROLLBACK;
SELECT pg_temp.schema_state() = :'before' AS rolled_back;

-- Clean up.
SET client_min_messages = warning;
DROP TABLE a_parent, a_child, orders, items, item_notes, by_hand, by_call, big, small, small_ref,
    ident_always, ident_default, ident_ref, serial_owner, serial_borrower, serial_owner2,
    serial_borrower2, public.twin, evil_target, evil_ref, events, event_tags, by_big, inh_parent, inh_child,
    by_id, by_ref_parent, by_ref;
DROP TABLE pg_temp.twin;
DROP SCHEMA conv_seqs, conv_app, "Sales Dept", "we'ird ""schema""" CASCADE;
DROP ROLE regress_convert_alice, regress_convert_bob;
RESET client_min_messages;
