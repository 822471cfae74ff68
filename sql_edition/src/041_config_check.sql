-- Checks a configuration before it is written (by snowflake_configure, by
-- hand, or by a restore); snowflake_sql_config_apply bakes it once written.
-- Refuses what could collide with ids already made, as the C extension
-- refuses it at start: once this node has made ids, the widths cannot change
-- and the epoch cannot move later.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_config_check()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    made boolean := pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_bound') > 0;
    what text;
BEGIN
    PERFORM @extschema@.snowflake_sql_layout_shift(NEW.epoch_ms, NEW.datacenter_bits, NEW.worker_bits,
                                       NEW.sequence_bits);
    IF NEW.worker_id < 0 OR NEW.worker_id > (1::bigint << NEW.worker_bits) - 1 THEN
        RAISE EXCEPTION 'invalid worker_id: %', NEW.worker_id
            USING ERRCODE = '22023',
                  DETAIL = format('Valid values are 0 to %s (worker_bits = %s).',
                                  (1::bigint << NEW.worker_bits) - 1, NEW.worker_bits);
    END IF;
    IF NEW.datacenter_id < 0 OR NEW.datacenter_id > (1::bigint << NEW.datacenter_bits) - 1 THEN
        RAISE EXCEPTION 'invalid datacenter_id: %', NEW.datacenter_id
            USING ERRCODE = '22023',
                  DETAIL = format('Valid values are 0 to %s (datacenter_bits = %s).',
                                  (1::bigint << NEW.datacenter_bits) - 1, NEW.datacenter_bits);
    END IF;
    IF NEW.clock_backward_policy NOT IN ('error', 'wait', 'borrow') THEN
        RAISE EXCEPTION 'invalid clock_backward_policy: "%"', NEW.clock_backward_policy
            USING ERRCODE = '22023', DETAIL = 'Valid values are "error", "wait" and "borrow".';
    END IF;
    IF NEW.max_clock_backward_ms < 0 THEN
        RAISE EXCEPTION 'invalid max_clock_backward_ms: %', NEW.max_clock_backward_ms
            USING ERRCODE = '22023', DETAIL = 'Valid values are 0 to 2147483647 ms.';
    END IF;
    IF TG_OP = 'UPDATE' AND made THEN
        what := concat_ws(', ',
            CASE WHEN NEW.epoch_ms > OLD.epoch_ms THEN 'epoch_ms' END,
            CASE WHEN NEW.datacenter_bits <> OLD.datacenter_bits THEN 'datacenter_bits' END,
            CASE WHEN NEW.worker_bits <> OLD.worker_bits THEN 'worker_bits' END,
            CASE WHEN NEW.sequence_bits <> OLD.sequence_bits THEN 'sequence_bits' END);
        IF what <> '' THEN
            RAISE EXCEPTION '% differs from the value the ids of this node were issued under', what
                USING ERRCODE = '22023',
                      DETAIL = format('This node made ids with epoch %s and layout %s/%s/%s '
                                      '(datacenter/worker/sequence bits); new ids could collide '
                                      'with them under epoch %s and layout %s/%s/%s.',
                                      OLD.epoch_ms, OLD.datacenter_bits, OLD.worker_bits,
                                      OLD.sequence_bits, NEW.epoch_ms, NEW.datacenter_bits,
                                      NEW.worker_bits, NEW.sequence_bits),
                      HINT = 'Keep the epoch and the widths: they belong to the ids already in '
                             'your tables. Only the identity, the clock policy and its bound can '
                             'change, and the epoch can move earlier.';
        END IF;
    END IF;
    RETURN NEW;
END
$fn$;

