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
    IF NEW.mark_tag < 1 OR NEW.mark_tag > 65535 THEN
        RAISE EXCEPTION 'invalid mark_tag: %', NEW.mark_tag
            USING ERRCODE = '22023', DETAIL = 'Valid values are 1 to 65535.';
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.mark_tag <> OLD.mark_tag THEN
        -- The node's own durable mark would read as another database's.
        RAISE EXCEPTION 'mark_tag cannot be set'
            USING ERRCODE = '55000',
                  DETAIL = 'It tells the durable mark this database wrote from one another '
                           'database wrote; a new identity draws a new one.';
    END IF;
    IF NEW.max_clock_backward_ms < 0 THEN
        RAISE EXCEPTION 'invalid max_clock_backward_ms: %', NEW.max_clock_backward_ms
            USING ERRCODE = '22023', DETAIL = 'Valid values are 0 to 2147483647 ms.';
    END IF;
    -- Against the layout the ids were made under (029_layout_guard.sql), for an
    -- INSERT too: a DELETE of the row does not get around it.
    PERFORM @extschema@.snowflake_sql_layout_guard(NEW.epoch_ms, NEW.datacenter_bits,
                                                   NEW.worker_bits, NEW.sequence_bits);
    -- (OLD is NULL for an INSERT.)
    RETURN @extschema@.snowflake_sql_identity_history(OLD, NEW);
END
$fn$;

