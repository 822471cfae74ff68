-- The id bound of a finite time, as the C extension computes it
-- (src/core/time_bounds.cpp): the first id made at the millisecond
-- unix_ms or later (clamped to 0 before the epoch; NULL past the lifetime),
-- or the last id made at unix_ms or earlier (NULL before the epoch; the
-- largest id past the lifetime).
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_first_id_from(unix_ms bigint, epoch_ms bigint, shift integer)
RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE
    WHEN unix_ms - epoch_ms > (1::bigint << (63 - shift)) - 1 THEN NULL
    ELSE GREATEST(unix_ms - epoch_ms, 0) << shift
END;

CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_last_id_through(unix_ms bigint, epoch_ms bigint, shift integer)
RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE
    WHEN unix_ms < epoch_ms THEN NULL
    WHEN unix_ms - epoch_ms > (1::bigint << (63 - shift)) - 1 THEN 9223372036854775807
    ELSE ((unix_ms - epoch_ms) << shift) | ((1::bigint << shift) - 1)
END;

