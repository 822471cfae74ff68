-- Exact id bounds of a time.  Never an error on a time: a bound that
-- excludes no id is the first or last id, one that no id meets is NULL.
CREATE FUNCTION @extschema@.snowflake_min_id_since(ts timestamptz)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_since'
LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT @extschema@.snowflake_time_support;
COMMENT ON FUNCTION @extschema@.snowflake_min_id_since(timestamptz) IS
    'smallest id made at ts or later (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_min_id_after(ts timestamptz)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_after'
LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT @extschema@.snowflake_time_support;
COMMENT ON FUNCTION @extschema@.snowflake_min_id_after(timestamptz) IS
    'smallest id made after ts (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_max_id_until(ts timestamptz)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_until'
LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT @extschema@.snowflake_time_support;
COMMENT ON FUNCTION @extschema@.snowflake_max_id_until(timestamptz) IS
    'largest id made at ts or earlier (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_max_id_before(ts timestamptz)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_before'
LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT @extschema@.snowflake_time_support;
COMMENT ON FUNCTION @extschema@.snowflake_max_id_before(timestamptz) IS
    'largest id made before ts (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_min_id_since(
    ts timestamptz, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_since_with_layout'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_min_id_since(timestamptz, bigint, integer, integer, integer) IS
    'smallest id made at ts or later under the given epoch and layout (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_min_id_after(
    ts timestamptz, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_after_with_layout'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_min_id_after(timestamptz, bigint, integer, integer, integer) IS
    'smallest id made after ts under the given epoch and layout (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_max_id_until(
    ts timestamptz, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_until_with_layout'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_max_id_until(timestamptz, bigint, integer, integer, integer) IS
    'largest id made at ts or earlier under the given epoch and layout (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_max_id_before(
    ts timestamptz, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_before_with_layout'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_max_id_before(timestamptz, bigint, integer, integer, integer) IS
    'largest id made before ts under the given epoch and layout (NULL if none)';

-- The same for a date or a timestamp without time zone, taken as PostgreSQL
-- compares them with a timestamptz: in the session's time zone (STABLE,
-- computed when the statement runs); beyond timestamptz's range, as before
-- or after every id.
CREATE FUNCTION @extschema@.snowflake_min_id_since(d date)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_since_date'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_min_id_since(date) IS
    'smallest id made at midnight of d (in the session''s time zone) or later (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_min_id_after(d date)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_after_date'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_min_id_after(date) IS
    'smallest id made after midnight of d (in the session''s time zone) (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_max_id_until(d date)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_until_date'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_max_id_until(date) IS
    'largest id made at midnight of d (in the session''s time zone) or earlier (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_max_id_before(d date)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_before_date'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_max_id_before(date) IS
    'largest id made before midnight of d (in the session''s time zone) (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_min_id_since(ts timestamp)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_since_timestamp'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_min_id_since(timestamp) IS
    'smallest id made at ts (in the session''s time zone) or later (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_min_id_after(ts timestamp)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_after_timestamp'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_min_id_after(timestamp) IS
    'smallest id made after ts (in the session''s time zone) (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_max_id_until(ts timestamp)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_until_timestamp'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_max_id_until(timestamp) IS
    'largest id made at ts (in the session''s time zone) or earlier (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_max_id_before(ts timestamp)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_before_timestamp'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_max_id_before(timestamp) IS
    'largest id made before ts (in the session''s time zone) (NULL if none)';
