-- ===========================================================================
-- The configuration, baked into functions
-- ===========================================================================

-- snowflake_sql_settings() returns the configuration as constants, and
-- snowflake_nextval() has the epoch and the layout written into it: both are
-- rewritten from snowflake_sql_config whenever it changes (a trigger), so
-- every session sees a change when it commits, even one whose snapshot is
-- older (functions are catalog objects).  The uniqueness of ids does not
-- depend on these constants (only on G and C); they make the ids the right
-- ones.
--
-- snowflake_nextval() is PL/pgSQL, one RETURN of one expression: PL/pgSQL
-- plans it once per session and evaluates it as a simple expression.  An SQL
-- function would be inlined into every statement that calls it, and planning
-- the inlined expression costs a statement of one call several times the
-- call itself.  PL/pgSQL reads the expression with the caller's search_path,
-- so every name in it is schema-qualified and every operator is written
-- OPERATOR(pg_catalog.op) (no SET search_path: it would cost each call a
-- change of setting).
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_bake()
RETURNS void
LANGUAGE plpgsql VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    c @extschema@.snowflake_sql_config;
BEGIN
    SELECT * INTO c FROM @extschema@.snowflake_sql_config;
    IF NOT FOUND THEN
        -- Not configured: the C extension's default layout, no identity.
        c := ROW(true, 1288834974657, 5, 5, 12, 0, NULL, 'borrow', 10000, NULL, NULL,
                 NULL, NULL, NULL, NULL, false, NULL);
    END IF;
    EXECUTE format($sql$
        CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_settings()
        RETURNS @extschema@.snowflake_sql_config
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN ROW(true, %s::bigint, %s, %s, %s, %s, %s::integer, %L, %s,
                   %L::timestamptz, %L::name, %L::timestamptz, %L::text, %L::timestamptz,
                   %L::timestamptz, %L::boolean, %L::integer)::@extschema@.snowflake_sql_config
        $sql$, c.epoch_ms, c.datacenter_bits, c.worker_bits, c.sequence_bits, c.datacenter_id,
        coalesce(c.worker_id::text, 'NULL'), c.clock_backward_policy, c.max_clock_backward_ms,
        c.configured_at, c.configured_by, c.identity_since, c.retired_identity, c.retired_since,
        c.retired_until, c.identities_complete, c.mark_tag);
    -- The fast path: R1 (G) is the left operand, R2 (nextval) the first
    -- argument of GREATEST, R3 the clock: the clock's millisecond since the
    -- epoch (by floor), shifted into id units.
    EXECUTE format($sql$
        CREATE OR REPLACE FUNCTION @extschema@.snowflake_nextval()
        RETURNS bigint
        LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE  -- names qualified
        AS $body$
        BEGIN
            RETURN COALESCE(
                CASE WHEN pg_catalog.pg_is_in_recovery() THEN NULL
                     WHEN pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_bound'::pg_catalog.regclass)
                          OPERATOR(pg_catalog.>)
                          GREATEST(pg_catalog.nextval('@extschema@.snowflake_sql_counter'::pg_catalog.regclass),
                                   (@extschema@.snowflake_sql_unix_ms(pg_catalog.clock_timestamp())
                                    OPERATOR(pg_catalog.-) %s::double precision)::bigint
                                   OPERATOR(pg_catalog.<<) %s)
                     THEN pg_catalog.currval('@extschema@.snowflake_sql_counter'::pg_catalog.regclass)
                END,
                @extschema@.snowflake_sql_next_slow());
        END
        $body$
        $sql$, c.epoch_ms, c.datacenter_bits + c.worker_bits + c.sequence_bits);
    EXECUTE $sql$
        COMMENT ON FUNCTION @extschema@.snowflake_nextval() IS 'next unique, increasing id of this node (database)'
        $sql$;
END
$fn$;
REVOKE ALL ON FUNCTION @extschema@.snowflake_sql_bake() FROM PUBLIC;

