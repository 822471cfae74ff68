-- The instant unix_ms milliseconds after 1970-01-01 UTC, exactly (no
-- floating point), or the C extension's error outside timestamptz's range.
-- Not STRICT (NULL gives NULL all the same): PostgreSQL inlines a STRICT SQL
-- function only when its expression is strict, which a CASE is not, and a
-- call that is not inlined costs microseconds (tens inside another SQL
-- function, as in snowflake_parse).
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_ms_to_ts(unix_ms bigint)
RETURNS timestamptz
LANGUAGE sql STABLE PARALLEL SAFE
RETURN CASE
    WHEN unix_ms < -210866803200000 OR unix_ms >= 9224318016000000 THEN
        @extschema@.snowflake_sql_raise_ts_range(unix_ms)
    ELSE (TIMESTAMP '1970-01-01 00:00:00' + (unix_ms / 86400000) * INTERVAL '1 day'
          + (unix_ms % 86400000) * INTERVAL '1 millisecond') AT TIME ZONE 'UTC'
END;

-- The same, but infinity (or -infinity) outside timestamptz's range, as the
-- C extension's snowflake_status shows a lifetime past it.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_ms_to_ts_or_infinity(unix_ms bigint)
RETURNS timestamptz
LANGUAGE sql STABLE PARALLEL SAFE
RETURN CASE
    WHEN unix_ms < -210866803200000 THEN '-infinity'::timestamptz
    WHEN unix_ms >= 9224318016000000 THEN 'infinity'::timestamptz
    ELSE @extschema@.snowflake_sql_ms_to_ts(unix_ms)
END;


-- Replaced by snowflake_sql_raise_ts_range (1.6): a polymorphic helper.
DROP FUNCTION IF EXISTS @extschema@.snowflake_sql_raise(anyelement, text, text, text, text);
