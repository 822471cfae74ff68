-- Objects go into the install schema, @extschema@: the extension's schema
-- (CREATE EXTENSION substitutes it), or the current schema for the plain
-- script (its wrapper substitutes it, sql_edition/build.sh).  Every name of
-- this edition's objects is written with it, and everything else resolves in
-- pg_catalog alone: the script, and every PL/pgSQL function
-- (SET search_path = pg_catalog, pg_temp), search only pg_catalog for
-- functions, operators and types, and pg_temp last for relations, which are
-- all written with their schema.  So nothing another role creates -- in the
-- install schema too, where it may be allowed to create (public before
-- PostgreSQL 15), or in a schema of a caller's search_path -- can stand in
-- for a function, an operator or a cast of the edition's code: an operator
-- written a op b resolves among pg_catalog's operators only, whatever its
-- argument types.  SQL functions with a standard body (RETURN, BEGIN ATOMIC)
-- resolve every name when they are created, under this search_path.
-- sql_edition/build.sh refuses a source that breaks these rules.
DO $guard$
BEGIN
    IF pg_catalog.to_regnamespace('@extschema@') IS NULL THEN
        RAISE EXCEPTION 'snowflake_sql: no schema to install into'
            USING ERRCODE = '3F000',
                  HINT = 'Set search_path to a schema you may create objects in.';
    END IF;
    IF '@extschema@'::pg_catalog.regnamespace::pg_catalog.text IN ('pg_catalog', 'information_schema') THEN
        RAISE EXCEPTION 'snowflake_sql: will not install into schema %', '@extschema@'
            USING ERRCODE = '42501',
                  HINT = 'Set search_path to a schema of your own first.';
    END IF;
    -- Until the end of the transaction (the script runs in one).
    PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
END
$guard$;

