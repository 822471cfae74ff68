CREATE FUNCTION @extschema@.snowflake_min_id_within(period tstzrange)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_min_id_within'
LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT @extschema@.snowflake_time_support;
COMMENT ON FUNCTION @extschema@.snowflake_min_id_within(tstzrange) IS
    'smallest id made within the range (NULL if none)';

CREATE FUNCTION @extschema@.snowflake_max_id_within(period tstzrange)
RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_max_id_within'
LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT @extschema@.snowflake_time_support;
COMMENT ON FUNCTION @extschema@.snowflake_max_id_within(tstzrange) IS
    'largest id made within the range (NULL if none)';

-- id <@ tstzrange: the id was made within the range.
CREATE FUNCTION @extschema@.snowflake_made_within(id bigint, period tstzrange)
RETURNS boolean
AS 'MODULE_PATHNAME', 'snowflake_made_within'
LANGUAGE C STABLE STRICT PARALLEL SAFE
SUPPORT @extschema@.snowflake_time_support;
COMMENT ON FUNCTION @extschema@.snowflake_made_within(bigint, tstzrange) IS
    'whether the id was made within the range (the <@ operator)';

CREATE FUNCTION @extschema@.snowflake_made_within_sel(internal, oid, internal, integer)
RETURNS double precision
AS 'MODULE_PATHNAME', 'snowflake_made_within_sel'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_made_within_sel(internal, oid, internal, integer) IS
    'selectivity of id <@ tstzrange, from the id column''s statistics';

CREATE OPERATOR @extschema@.<@ (
    LEFTARG = bigint,
    RIGHTARG = tstzrange,
    FUNCTION = @extschema@.snowflake_made_within,
    RESTRICT = @extschema@.snowflake_made_within_sel,
    JOIN = pg_catalog.contjoinsel   -- as core's element <@ range
);
COMMENT ON OPERATOR @extschema@.<@ (bigint, tstzrange) IS 'id was made within the time range';
