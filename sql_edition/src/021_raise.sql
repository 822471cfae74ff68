-- Raises the C extension's "timestamp out of range" error; returns a
-- timestamptz so that it can stand in an expression of that type.  STABLE,
-- not IMMUTABLE: the planner never runs it to fold constants, so a branch
-- that is not taken never raises.  One type, no default argument: a call
-- passes exactly its argument types, so no overload another role makes in
-- the install schema matches it better (a polymorphic helper could be
-- captured by an overload of an exact type).
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_raise_ts_range(unix_ms bigint)
RETURNS timestamptz
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    RAISE EXCEPTION 'timestamp out of range: % ms after 1970-01-01', unix_ms
        USING ERRCODE = '22008';
END
$fn$;
