CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_parse(
    id bigint, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer,
    OUT ts timestamptz, OUT unix_ms bigint, OUT datacenter_id integer, OUT worker_id integer,
    OUT sequence integer)
RETURNS record
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    shift integer := @extschema@.snowflake_sql_layout_shift(epoch_ms, datacenter_bits, worker_bits, sequence_bits);
BEGIN
    IF id < 0 THEN
        PERFORM @extschema@.snowflake_sql_invalid_id(NULL::bigint, id);
    END IF;
    unix_ms := epoch_ms + (id >> shift);
    ts := @extschema@.snowflake_sql_ms_to_ts(unix_ms);
    datacenter_id := (id >> (worker_bits + sequence_bits)) & ((1::bigint << datacenter_bits) - 1);
    worker_id := (id >> sequence_bits) & ((1::bigint << worker_bits) - 1);
    sequence := id & ((1::bigint << sequence_bits) - 1);
END
$fn$;

CREATE OR REPLACE FUNCTION @extschema@.snowflake_parse(
    id bigint,
    OUT ts timestamptz,
    OUT unix_ms bigint,
    OUT datacenter_id integer,
    OUT worker_id integer,
    OUT sequence integer)
RETURNS record
LANGUAGE sql STABLE STRICT PARALLEL SAFE
-- One row of expressions, which constants (the node's layout, baked into
-- snowflake_sql_settings(), is valid) and inlined functions make cheap: no
-- PL/pgSQL call per id.  The check of id is outside snowflake_sql_ms_to_ts's
-- argument, which stays cheap enough to be inlined.
BEGIN ATOMIC
    SELECT CASE WHEN id < 0 THEN @extschema@.snowflake_sql_invalid_id(NULL::timestamptz, id)
                ELSE @extschema@.snowflake_sql_ms_to_ts((@extschema@.snowflake_sql_settings()).epoch_ms
                         + (id >> ((@extschema@.snowflake_sql_settings()).datacenter_bits
                                   + (@extschema@.snowflake_sql_settings()).worker_bits
                                   + (@extschema@.snowflake_sql_settings()).sequence_bits)))
           END,
           (@extschema@.snowflake_sql_settings()).epoch_ms
               + (id >> ((@extschema@.snowflake_sql_settings()).datacenter_bits
                         + (@extschema@.snowflake_sql_settings()).worker_bits
                         + (@extschema@.snowflake_sql_settings()).sequence_bits)),
           ((id >> ((@extschema@.snowflake_sql_settings()).worker_bits
                    + (@extschema@.snowflake_sql_settings()).sequence_bits))
            & ((1::bigint << (@extschema@.snowflake_sql_settings()).datacenter_bits) - 1))::integer,
           ((id >> (@extschema@.snowflake_sql_settings()).sequence_bits)
            & ((1::bigint << (@extschema@.snowflake_sql_settings()).worker_bits) - 1))::integer,
           (id & ((1::bigint << (@extschema@.snowflake_sql_settings()).sequence_bits) - 1))::integer;
END;
COMMENT ON FUNCTION @extschema@.snowflake_parse(bigint) IS 'decode an id with the node''s epoch and layout';

CREATE OR REPLACE FUNCTION @extschema@.snowflake_parse(
    id bigint,
    epoch_ms bigint,
    datacenter_bits integer,
    worker_bits integer,
    sequence_bits integer,
    OUT ts timestamptz,
    OUT unix_ms bigint,
    OUT datacenter_id integer,
    OUT worker_id integer,
    OUT sequence integer)
RETURNS record
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT p.ts, p.unix_ms, p.datacenter_id, p.worker_id, p.sequence
    FROM @extschema@.snowflake_sql_parse(id, epoch_ms, datacenter_bits, worker_bits, sequence_bits) p;
END;
COMMENT ON FUNCTION @extschema@.snowflake_parse(bigint, bigint, integer, integer, integer) IS
    'decode an id under the given epoch and layout';

