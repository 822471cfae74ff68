-- Objects go into the current schema; names are resolved with pg_catalog
-- first (it is not listed, so PostgreSQL searches it first) and pg_temp last,
-- so that nothing in another schema, or a temporary object, can stand in for
-- an object of this edition.  Functions written in PL/pgSQL keep this
-- search_path (SET search_path FROM CURRENT); SQL functions with a standard
-- body (RETURN, BEGIN ATOMIC) resolve every name when they are created.
DO $guard$
BEGIN
    IF pg_catalog.current_schema() IS NULL THEN
        RAISE EXCEPTION 'snowflake_sql: no schema to install into'
            USING ERRCODE = '3F000',
                  HINT = 'Set search_path to a schema you may create objects in.';
    END IF;
    IF pg_catalog.current_schema() IN ('pg_catalog', 'information_schema') THEN
        RAISE EXCEPTION 'snowflake_sql: will not install into schema %', pg_catalog.current_schema()
            USING ERRCODE = '42501',
                  HINT = 'Set search_path to a schema of your own first.';
    END IF;
    -- Until the end of the transaction (the script runs in one).
    PERFORM pg_catalog.set_config('search_path',
                                  pg_catalog.quote_ident(pg_catalog.current_schema()) || ', pg_temp',
                                  true);
END
$guard$;

