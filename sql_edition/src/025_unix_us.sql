-- Microseconds (numeric, exact) from 1970-01-01 UTC to a finite instant.
-- Measured from 2000-01-01, where timestamptz's arithmetic cannot overflow.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_unix_us(ts timestamptz)
RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN EXTRACT(epoch FROM ts - TIMESTAMPTZ '2000-01-01 00:00:00+00') * 1000000
       + 946684800000000;

