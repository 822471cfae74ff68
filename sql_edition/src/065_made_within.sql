-- id <@ period: the id was made within the range, its bounds and infinities
-- honoured; false for a negative id (made at no time).  A plain operator:
-- this edition has no planner support, so a condition on it reads every row
-- it is given; write bounds on the id for an index (docs/managed.md).
CREATE OR REPLACE FUNCTION @extschema@.snowflake_made_within(id bigint, period tstzrange)
RETURNS boolean
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    s @extschema@.snowflake_sql_config := @extschema@.snowflake_sql_settings();
    shift integer := s.datacenter_bits + s.worker_bits + s.sequence_bits;
    lo bigint := 0;
    hi bigint := 9223372036854775807;
    b timestamptz;
    us numeric;
    ms bigint;
BEGIN
    IF id < 0 OR pg_catalog.isempty(period) THEN
        RETURN false;
    END IF;
    IF NOT pg_catalog.lower_inf(period) THEN
        b := pg_catalog.lower(period);
        IF b = 'infinity'::timestamptz THEN
            RETURN false;
        ELSIF b <> '-infinity'::timestamptz THEN
            us := @extschema@.snowflake_sql_unix_us(b);
            ms := floor(us / 1000)::bigint;
            -- made at b or later (inclusive), or after b
            IF pg_catalog.lower_inc(period) AND us % 1000 = 0 THEN
                lo := @extschema@.snowflake_sql_first_id_from(ms, s.epoch_ms, shift);
            ELSE
                lo := @extschema@.snowflake_sql_first_id_from(ms + 1, s.epoch_ms, shift);
            END IF;
            IF lo IS NULL THEN
                RETURN false;
            END IF;
        END IF;
    END IF;
    IF NOT pg_catalog.upper_inf(period) THEN
        b := pg_catalog.upper(period);
        IF b = '-infinity'::timestamptz THEN
            RETURN false;
        ELSIF b <> 'infinity'::timestamptz THEN
            us := @extschema@.snowflake_sql_unix_us(b);
            ms := floor(us / 1000)::bigint;
            -- made at b or earlier (inclusive), or before b
            IF pg_catalog.upper_inc(period) OR us % 1000 <> 0 THEN
                hi := @extschema@.snowflake_sql_last_id_through(ms, s.epoch_ms, shift);
            ELSE
                hi := @extschema@.snowflake_sql_last_id_through(ms - 1, s.epoch_ms, shift);
            END IF;
            IF hi IS NULL THEN
                RETURN false;
            END IF;
        END IF;
    END IF;
    RETURN id >= lo AND id <= hi;
END
$fn$;
COMMENT ON FUNCTION @extschema@.snowflake_made_within(bigint, tstzrange) IS
    'whether the id was made within the range (the <@ operator)';

DO $op$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_operator o
                   WHERE o.oprname = '<@' AND o.oprleft = 'bigint'::regtype
                     AND o.oprright = 'tstzrange'::regtype
                     AND o.oprnamespace = '@extschema@'::pg_catalog.regnamespace) THEN
        CREATE OPERATOR @extschema@.<@ (
            LEFTARG = bigint,
            RIGHTARG = tstzrange,
            FUNCTION = @extschema@.snowflake_made_within,
            RESTRICT = pg_catalog.contsel,
            JOIN = pg_catalog.contjoinsel);
    END IF;
END
$op$;
COMMENT ON OPERATOR @extschema@.<@ (bigint, tstzrange) IS 'id was made within the time range';

