-- Checks epoch and widths given as arguments, with the C extension's
-- messages and in its order; returns the timestamp shift.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_layout_shift(
    epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS integer
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    IF epoch_ms < 0 OR epoch_ms > 253402300799999 THEN
        RAISE EXCEPTION 'invalid epoch_ms: %', epoch_ms
            USING ERRCODE = '22023',
                  DETAIL = 'epoch_ms must lie between 0 (1970-01-01 00:00:00 UTC) and '
                           '253402300799999 (9999-12-31 23:59:59.999 UTC).';
    END IF;
    IF datacenter_bits < 0 THEN
        RAISE EXCEPTION 'invalid datacenter_bits: %', datacenter_bits
            USING ERRCODE = '22023', DETAIL = 'Widths cannot be negative.';
    END IF;
    IF worker_bits < 0 THEN
        RAISE EXCEPTION 'invalid worker_bits: %', worker_bits
            USING ERRCODE = '22023', DETAIL = 'Widths cannot be negative.';
    END IF;
    IF sequence_bits < 0 THEN
        RAISE EXCEPTION 'invalid sequence_bits: %', sequence_bits
            USING ERRCODE = '22023', DETAIL = 'Widths cannot be negative.';
    END IF;
    IF sequence_bits < 1 THEN
        RAISE EXCEPTION 'invalid sequence_bits: %', sequence_bits
            USING ERRCODE = '22023', DETAIL = 'sequence_bits must be at least 1.';
    END IF;
    IF datacenter_bits::bigint + worker_bits + sequence_bits > 28 THEN
        RAISE EXCEPTION 'invalid layout: datacenter_bits + worker_bits + sequence_bits = %',
                        datacenter_bits::bigint + worker_bits + sequence_bits
            USING ERRCODE = '22023',
                  DETAIL = 'The widths must leave at least 35 timestamp bits, so they add up to at most 28.';
    END IF;
    RETURN datacenter_bits + worker_bits + sequence_bits;
END
$fn$;

