-- snowflake_parse(id): PL/pgSQL, an assignment per field, each a simple
-- expression over the node's layout as constants (snowflake_sql_settings(),
-- baked, folds into the plan, which a new configuration invalidates).  An SQL
-- function returning a row is never inlined: PostgreSQL runs its query through
-- the executor on every call, two to three times the time of this.  No SET
-- search_path (a SET costs each call a change of setting): every name is
-- qualified.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_parse(
    id bigint,
    OUT ts timestamptz,
    OUT unix_ms bigint,
    OUT datacenter_id integer,
    OUT worker_id integer,
    OUT sequence integer)
RETURNS record
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE  -- names qualified
AS $body$
BEGIN
    IF id OPERATOR(pg_catalog.<) 0 THEN
        PERFORM @extschema@.snowflake_sql_invalid_id(id);
    END IF;
    unix_ms := (@extschema@.snowflake_sql_settings()).epoch_ms
               OPERATOR(pg_catalog.+) (id OPERATOR(pg_catalog.>>)
                   ((@extschema@.snowflake_sql_settings()).datacenter_bits
                    OPERATOR(pg_catalog.+) (@extschema@.snowflake_sql_settings()).worker_bits
                    OPERATOR(pg_catalog.+) (@extschema@.snowflake_sql_settings()).sequence_bits));
    ts := @extschema@.snowflake_sql_ms_to_ts(unix_ms);
    datacenter_id := ((id OPERATOR(pg_catalog.>>)
                          ((@extschema@.snowflake_sql_settings()).worker_bits
                           OPERATOR(pg_catalog.+) (@extschema@.snowflake_sql_settings()).sequence_bits))
                      OPERATOR(pg_catalog.&)
                      ((1::bigint OPERATOR(pg_catalog.<<) (@extschema@.snowflake_sql_settings()).datacenter_bits)
                       OPERATOR(pg_catalog.-) 1))::integer;
    worker_id := ((id OPERATOR(pg_catalog.>>) (@extschema@.snowflake_sql_settings()).sequence_bits)
                  OPERATOR(pg_catalog.&)
                  ((1::bigint OPERATOR(pg_catalog.<<) (@extschema@.snowflake_sql_settings()).worker_bits)
                   OPERATOR(pg_catalog.-) 1))::integer;
    sequence := (id OPERATOR(pg_catalog.&)
                 ((1::bigint OPERATOR(pg_catalog.<<) (@extschema@.snowflake_sql_settings()).sequence_bits)
                  OPERATOR(pg_catalog.-) 1))::integer;
END
$body$;
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
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    shift integer := @extschema@.snowflake_sql_layout_shift(epoch_ms, datacenter_bits, worker_bits, sequence_bits);
BEGIN
    IF id < 0 THEN
        PERFORM @extschema@.snowflake_sql_invalid_id(id);
    END IF;
    unix_ms := epoch_ms + (id >> shift);
    ts := @extschema@.snowflake_sql_ms_to_ts(unix_ms);
    datacenter_id := (id >> (worker_bits + sequence_bits)) & ((1::bigint << datacenter_bits) - 1);
    worker_id := (id >> sequence_bits) & ((1::bigint << worker_bits) - 1);
    sequence := id & ((1::bigint << sequence_bits) - 1);
END
$fn$;
COMMENT ON FUNCTION @extschema@.snowflake_parse(bigint, bigint, integer, integer, integer) IS
    'decode an id under the given epoch and layout';

-- Earlier versions parsed through this (both functions above are it now).
DROP FUNCTION IF EXISTS @extschema@.snowflake_sql_parse(bigint, bigint, integer, integer, integer);

