-- The extension's SQL as docs/testing.md ("Where the SQL lives") describes
-- it: no PL/pgSQL or SQL function of the installed extension has a body over
-- 200 lines, and its internal functions (_snowflake_*, the steps of its
-- functions) refuse to run unless the function they belong to calls them.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS snowflake;
RESET client_min_messages;
SELECT p.oid::regprocedure AS function, array_length(string_to_array(p.prosrc, E'\n'), 1) AS lines
FROM pg_proc p
JOIN pg_language l ON l.oid = p.prolang
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake')
  AND l.lanname IN ('plpgsql', 'sql')
  AND array_length(string_to_array(p.prosrc, E'\n'), 1) > 200;

\set SHOW_CONTEXT never
-- Each internal function called alone, with NULL arguments: refused (42501).
CREATE TEMP TABLE internal_calls (function text, refused boolean, error text);
DO $$
DECLARE
    f record;
BEGIN
    FOR f IN
        SELECT p.oid::regprocedure AS sig, p.oid::regproc AS name,
               (SELECT string_agg(format('NULL::%s', t::regtype), ', ' ORDER BY n)
                  FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS a(t, n)) AS args
        FROM pg_proc p
        JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
        WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake')
          AND p.proname LIKE '\_snowflake\_%' AND p.proname <> '_snowflake_internal'
    LOOP
        BEGIN
            EXECUTE format('SELECT * FROM %s(%s)', f.name, f.args);
            INSERT INTO internal_calls VALUES (f.sig::text, false, NULL);
        EXCEPTION WHEN insufficient_privilege THEN
            INSERT INTO internal_calls VALUES (f.sig::text, true, NULL);
        WHEN OTHERS THEN
            INSERT INTO internal_calls VALUES (f.sig::text, false, SQLERRM);
        END;
    END LOOP;
END $$;
SELECT count(*) >= 10 AS internal_functions, bool_and(refused) AS each_refused_alone
FROM internal_calls;
SELECT * FROM internal_calls WHERE NOT refused;
-- The message says whose step it is.
SELECT _snowflake_convert_run(NULL);
DROP TABLE internal_calls;
