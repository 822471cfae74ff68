-- The lock every writer of the registry takes (one at a time: the rules
-- read the whole table), after checking the node's widths: valid, and the
-- registry's own (a pair means other node bits under other widths).
-- Called by the SECURITY DEFINER functions below, as their owner.
CREATE FUNCTION @extschema@.snowflake_registry_lock(datacenter_bits integer, worker_bits integer)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn_dc_bits integer := snowflake_registry_lock.datacenter_bits;
    fn_w_bits integer := snowflake_registry_lock.worker_bits;
    other_dc_bits integer;
    other_w_bits integer;
BEGIN
    IF fn_dc_bits IS NULL OR fn_w_bits IS NULL
       OR fn_dc_bits NOT BETWEEN 0 AND 27 OR fn_w_bits NOT BETWEEN 0 AND 27 THEN
        RAISE EXCEPTION 'snowflake registry: datacenter_bits and worker_bits must be between 0 and 27'
            USING ERRCODE = '22023';
    END IF;
    LOCK TABLE @extschema@.snowflake_registry IN SHARE ROW EXCLUSIVE MODE;
    SELECT r.datacenter_bits, r.worker_bits INTO other_dc_bits, other_w_bits
    FROM @extschema@.snowflake_registry r
    WHERE r.datacenter_bits IS NOT NULL
      AND (r.datacenter_bits, r.worker_bits) <> (fn_dc_bits, fn_w_bits)
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'the snowflake registry holds claims made under other widths'
            USING ERRCODE = '22023',
                  DETAIL = format('Its claims were made with datacenter_bits = %s and '
                                  'worker_bits = %s; this node asks with %s and %s. The same '
                                  'pair means other node bits under other widths, so ids could '
                                  'collide.', other_dc_bits, other_w_bits, fn_dc_bits, fn_w_bits),
                  HINT = 'Give every node of a registry the same snowflake.datacenter_bits and '
                         'snowflake.worker_bits, or use one registry database per layout.';
    END IF;
END
$$;
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_lock(integer, integer) FROM PUBLIC;
