-- Calls every function of the SQL edition (made from the catalog: each with
-- literal arguments of its exact types, written with its schema), the view,
-- the operator, and the paths that make ids, with a search_path that puts the
-- hostile role's schema first and pg_catalog last
-- (test/sql_edition/006_hostile_roles.pl runs it as the owner, a superuser
-- and an application role, with psql variables edition and hostile, after
-- hostile_shadows.sql).  Errors are expected (an application role may not
-- configure the node; some arguments are out of range) and are not the
-- point: no shadow may run.  Nothing here names a function or an operator
-- without its schema.
\set ON_ERROR_STOP 0
SET search_path = pg_catalog;
-- Each value of a literal per type (by argument name where it matters).
CREATE TEMP TABLE sample (typ regtype, argname text, lit text);
INSERT INTO sample VALUES
    ('bigint', NULL, '2126272901224083456'), ('bigint', NULL, '-1'),
    ('bigint', 'epoch_ms', '1288834974657'),
    ('integer', NULL, '5'), ('integer', 'sequence_bits', '12'),
    ('text', NULL, 'base62'), ('text', NULL, 'hex'), ('text', NULL, 'base32'),
    ('text', 'txt', '2Wf8vH4EGF0'), ('text', 'txt', 'zzzzzzzzzzzz'), ('text', 'txt', '9223372036854775808'),
    ('text', 's', 'a long text, longer than forty bytes of text, is cut'),
    ('text', 'clock_backward_policy', 'wait'),
    ('boolean', NULL, 'true'), ('boolean', NULL, 'false'),
    ('timestamp with time zone', NULL, '2026-11-27 10:00:00.5+00'),
    ('timestamp with time zone', NULL, 'infinity'),
    ('tstzrange', NULL, '[2026-01-01,2027-01-01)'), ('tstzrange', NULL, '(2026-01-01,)'),
    ('numeric', NULL, '12.5');
-- The calls: for each function of the edition (not a trigger's), each
-- argument's literals (of its name, else of its type) in turn, the others at
-- their first.
CREATE TEMP TABLE calls AS
WITH f AS (
    SELECT p.oid, p.proname, string_to_array(oidvectortypes(p.proargtypes), ', ') AS types,
           coalesce(p.proargnames, ARRAY[]::text[]) AS names
    FROM pg_proc p
    WHERE p.pronamespace = :'edition'::regnamespace AND p.prokind = 'f'
      AND p.proowner = (SELECT c.relowner FROM pg_class c
                        WHERE c.oid = (:'edition' || '.snowflake_sql_config')::regclass)
      AND p.prorettype <> 'trigger'::regtype),
arg AS (
    SELECT f.oid, i, f.types[i]::regtype AS typ, f.names[i] AS argname
    FROM f, generate_subscripts(f.types, 1) i),
lits AS (
    SELECT a.oid, a.i, s.lit,
           row_number() OVER (PARTITION BY a.oid, a.i ORDER BY s.argname IS NULL, s.lit) AS nth
    FROM arg a JOIN sample s ON s.typ = a.typ
    WHERE s.argname = a.argname
       OR (s.argname IS NULL AND NOT EXISTS (SELECT 1 FROM sample t WHERE t.typ = a.typ
                                                                    AND t.argname = a.argname))),
variant AS (   -- (function, argument varied, its literal's rank)
    SELECT DISTINCT oid, i AS vi, nth FROM lits
    UNION SELECT oid, 0, 1 FROM f)
SELECT format('SELECT %I.%I(%s)', :'edition', f.proname,
              coalesce((SELECT string_agg(format('%L::%s', l.lit, f.types[l.i]), ', ' ORDER BY l.i)
                        FROM lits l
                        WHERE l.oid = f.oid AND l.nth = CASE WHEN l.i = v.vi THEN v.nth ELSE 1 END),
                       '')) AS q
FROM f JOIN variant v ON v.oid = f.oid
WHERE NOT EXISTS (SELECT 1 FROM arg a WHERE a.oid = f.oid
                  AND NOT EXISTS (SELECT 1 FROM lits l WHERE l.oid = a.oid AND l.i = a.i))
ORDER BY f.proname, v.vi, v.nth;
SELECT count(*) > 30 AS "enough calls" FROM calls;

SET search_path = :"hostile", :"edition", pg_catalog;
SELECT q FROM pg_temp.calls \gexec

-- What makes ids: the fast path, the slow path (a new millisecond, many
-- times), a column default, in each isolation level and in a read-only
-- transaction; the status, the operator.
SELECT count(*) FROM (SELECT :"edition".snowflake_nextval() FROM pg_catalog.generate_series(1, 3000)) x;
CREATE TEMP TABLE t (id bigint DEFAULT :"edition".snowflake_nextval(), v integer);
INSERT INTO pg_temp.t (v) SELECT * FROM pg_catalog.generate_series(1, 3000);
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM (SELECT :"edition".snowflake_nextval() FROM pg_catalog.generate_series(1, 3000)) x;
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT count(*) FROM (SELECT :"edition".snowflake_nextval() FROM pg_catalog.generate_series(1, 3000)) x;
COMMIT;
BEGIN READ ONLY;
SELECT :"edition".snowflake_nextval();
ROLLBACK;
SELECT * FROM :"edition".snowflake_status;
SELECT '2126272901224083456'::bigint OPERATOR(:"edition".<@) '[2026-01-01,)'::pg_catalog.tstzrange;
SELECT '2126272901224083456'::bigint OPERATOR(:"edition".<@) '(2026-01-01,2026-01-01]'::pg_catalog.tstzrange;
-- The owner's: a new configuration (the fast path and the settings rewritten
-- now, with the shadows in place), then ids; start_above.
SELECT :"edition".snowflake_configure(worker_id => 4);
SELECT :"edition".snowflake_configure(worker_id => 3, clock_backward_policy => 'wait');
SELECT count(*) FROM (SELECT :"edition".snowflake_nextval() FROM pg_catalog.generate_series(1, 3000)) x;
SELECT :"edition".snowflake_start_above(:"edition".snowflake_nextval());
SELECT count(*) FROM (SELECT :"edition".snowflake_nextval() FROM pg_catalog.generate_series(1, 3000)) x;
