-- Text quoted in a message: cut to 40 bytes on a character boundary and
-- marked with "..." (the C extension's rule: the text may be megabytes).
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_quote(s text)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN pg_catalog.octet_length(s) <= 40 THEN s
                ELSE (SELECT pg_catalog.left(s, n) FROM pg_catalog.generate_series(0, 40) n
                      WHERE pg_catalog.octet_length(pg_catalog.left(s, n)) <= 40
                      ORDER BY n DESC LIMIT 1) || '...'
           END;
END;

