-- The smallest (or largest) id any node can make in the millisecond of ts,
-- or the C extension's error for a time that has none.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_ms_bound(
    ts timestamptz, largest boolean, epoch_ms bigint, shift integer)
RETURNS bigint
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
SET DateStyle = 'ISO, MDY'   -- messages show times as the C extension does, in ISO form
AS $fn$
DECLARE
    max_ms bigint := (1::bigint << (63 - shift)) - 1;
    unix_ms bigint;
BEGIN
    IF NOT pg_catalog.isfinite(ts) THEN
        RAISE EXCEPTION 'timestamp "%" has no snowflake id',
                        CASE WHEN ts = '-infinity'::timestamptz THEN '-infinity' ELSE 'infinity' END
            USING ERRCODE = '22008',
                  DETAIL = 'Only finite times from the epoch to the end of the layout''s lifetime '
                           'map to ids.';
    END IF;
    unix_ms := floor(@extschema@.snowflake_sql_unix_us(ts) / 1000)::bigint;
    IF unix_ms < epoch_ms THEN
        RAISE EXCEPTION 'timestamp "%" is before the snowflake epoch', ts
            USING ERRCODE = '22008',
                  DETAIL = format('The epoch is %s.', @extschema@.snowflake_sql_ms_to_ts(epoch_ms));
    END IF;
    IF unix_ms - epoch_ms > max_ms THEN
        RAISE EXCEPTION 'timestamp "%" is past the end of the snowflake lifetime', ts
            USING ERRCODE = '22008',
                  DETAIL = format('The last millisecond the layout can represent is %s.',
                                  @extschema@.snowflake_sql_ms_to_ts(epoch_ms + max_ms));
    END IF;
    IF largest THEN
        RETURN ((unix_ms - epoch_ms) << shift) | ((1::bigint << shift) - 1);
    END IF;
    RETURN (unix_ms - epoch_ms) << shift;
END
$fn$;

