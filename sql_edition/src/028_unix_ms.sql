-- The Unix millisecond of a time, by floor (the fast path's clock), in
-- float8 arithmetic, which is cheaper than numeric and here exact: the
-- microseconds are rounded to the integer they are, and an integer divided by
-- 1000 floors to the right millisecond (its rounding error is far below
-- 1/1000).  STABLE, like date_part, so that it is inlined.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_unix_ms(ts timestamptz)
RETURNS double precision
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN pg_catalog.floor(pg_catalog.round(pg_catalog.date_part('epoch', ts) * 1000000) / 1000);

