-- The epoch and widths the node's ids were made under, in the sequence
-- snowflake_sql_layout: a DELETE or TRUNCATE of the configuration, or a
-- data-only restore with its triggers disabled, does not reach it.  Its value
-- is the layout's code, (epoch_ms << 15) | datacenter_bits << 10 |
-- worker_bits << 5 | sequence_bits; 0 until the first id.  The slow path
-- writes it when it publishes a region under another code (the first id, or
-- an epoch moved earlier), after this guard.
--
-- The guard refuses a layout that could collide with the ids made (a width
-- changed, or the epoch moved later), as the C extension refuses it at start;
-- the configuration's trigger and the slow path run it.  Returns the code of
-- the layout given.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_layout_guard(
    epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    made bigint := coalesce(pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_layout'), 0);
    made_epoch bigint := made >> 15;
    made_dc integer := ((made >> 10) & 31)::integer;
    made_w integer := ((made >> 5) & 31)::integer;
    made_s integer := (made & 31)::integer;
    what text;
BEGIN
    IF made > 0 THEN
        what := concat_ws(', ',
            CASE WHEN epoch_ms > made_epoch THEN 'epoch_ms' END,
            CASE WHEN datacenter_bits <> made_dc THEN 'datacenter_bits' END,
            CASE WHEN worker_bits <> made_w THEN 'worker_bits' END,
            CASE WHEN sequence_bits <> made_s THEN 'sequence_bits' END);
        IF what <> '' THEN
            RAISE EXCEPTION '% differs from the value the ids of this node were issued under', what
                USING ERRCODE = '22023',
                      DETAIL = format('This node made ids with epoch %s and layout %s/%s/%s '
                                      '(datacenter/worker/sequence bits); new ids could collide '
                                      'with them under epoch %s and layout %s/%s/%s.',
                                      made_epoch, made_dc, made_w, made_s, epoch_ms,
                                      datacenter_bits, worker_bits, sequence_bits),
                      HINT = 'Keep the epoch and the widths: they belong to the ids already in '
                             'your tables. Only the identity, the clock policy and its bound can '
                             'change, and the epoch can move earlier.';
        END IF;
    END IF;
    RETURN (epoch_ms << 15) | (datacenter_bits << 10) | (worker_bits << 5) | sequence_bits;
END
$fn$;
REVOKE ALL ON FUNCTION @extschema@.snowflake_sql_layout_guard(bigint, integer, integer, integer) FROM PUBLIC;

