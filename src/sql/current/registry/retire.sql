-- A node left a pair: every id it issued under it carries a time at or
-- before retired_until.  Its claim or reservation of the pair goes, and the
-- pair is not handed to another node before that time (plus the margin).
-- Only the node whose row it is (node_secret, secret.sql) removes the row,
-- and a pair another node holds (a claim, a reservation, a pair set aside by
-- hand) is not retired in anyone else's name: that would hold its live
-- holder's ids back.  A pair nobody holds may be reported by any node (one
-- whose row the registry lost); the retirement only ever grows, up to 10
-- minutes from now (hold_back.sql).
CREATE FUNCTION @extschema@.snowflake_registry_retire(
    node_key text,
    datacenter_id integer,
    worker_id integer,
    retired_until timestamptz,
    node_secret text)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn_key text := snowflake_registry_retire.node_key;
    fn_dc integer := snowflake_registry_retire.datacenter_id;
    fn_w integer := snowflake_registry_retire.worker_id;
    fn_until timestamptz := snowflake_registry_retire.retired_until;
    fn_secret text := snowflake_registry_retire.node_secret;
    fn_hash bytea := @extschema@.snowflake_registry_secret_hash(snowflake_registry_retire.node_secret);
    own record;
BEGIN
    IF fn_key IS NULL OR fn_key = '' THEN
        RAISE EXCEPTION 'snowflake registry: node_key must not be empty'
            USING ERRCODE = '22023';
    END IF;
    IF fn_dc IS NULL OR fn_w IS NULL OR fn_dc < 0 OR fn_w < 0 OR fn_until IS NULL
       OR NOT isfinite(fn_until) THEN
        RAISE EXCEPTION 'snowflake registry: a retired pair needs a non-negative datacenter_id and worker_id and a finite retired_until'
            USING ERRCODE = '22023';
    END IF;
    LOCK TABLE @extschema@.snowflake_registry IN SHARE ROW EXCLUSIVE MODE;
    SELECT r.node_key, r.secret_hash INTO own FROM @extschema@.snowflake_registry r
    WHERE r.datacenter_id = fn_dc AND r.worker_id = fn_w;
    IF FOUND AND own.node_key <> fn_key THEN
        RAISE EXCEPTION 'snowflake registry: datacenter_id % worker_id % is held by node %, not by node %',
                        fn_dc, fn_w, own.node_key, fn_key
            USING ERRCODE = '42501',
                  DETAIL = 'A node retires only a pair it holds, or one nobody holds.',
                  HINT = 'To take a pair from a node that no longer runs, the registry''s owner releases it: snowflake_registry_release().';
    END IF;
    IF FOUND THEN
        PERFORM @extschema@.snowflake_registry_check_secret(fn_key, fn_dc, fn_w, own.secret_hash,
                                                              fn_secret);
    END IF;
    DELETE FROM @extschema@.snowflake_registry r
    WHERE r.node_key = fn_key AND r.datacenter_id = fn_dc AND r.worker_id = fn_w;
    -- Reported again (a restarted node), or by another node too: the
    -- latest time stands.
    PERFORM @extschema@.snowflake_registry_hold_back(fn_dc, fn_w, fn_until, fn_key, fn_hash);
END
$$;
COMMENT ON FUNCTION @extschema@.snowflake_registry_retire(text, integer, integer, timestamptz, text) IS
    'a node left a pair: no other node gets it before retired_until (plus one second); run on the registry server';
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_retire(text, integer, integer, timestamptz, text) FROM PUBLIC;

-- The 1.5 signature, without a node secret: removes only rows recorded
-- without one.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_registry_retire(
    node_key text,
    datacenter_id integer,
    worker_id integer,
    retired_until timestamptz)
RETURNS void
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT @extschema@.snowflake_registry_retire(node_key, datacenter_id, worker_id, retired_until,
                                                 NULL)
$$;
COMMENT ON FUNCTION @extschema@.snowflake_registry_retire(text, integer, integer, timestamptz) IS
    'a node of 1.5 left a pair (no node secret: only rows recorded without one); run on the registry server';
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_retire(text, integer, integer, timestamptz) FROM PUBLIC;
