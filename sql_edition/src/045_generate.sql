-- ===========================================================================
-- Many ids in one call: snowflake_generate(n)
-- ===========================================================================

-- The C extension's snowflake_generate: n ids (1 to 1,000,000) in increasing
-- order, the same arguments and errors.  Each id is taken as
-- snowflake_nextval() takes it (000_design.sql), in a loop: R1, the bound G,
-- is read once for each region, before every nextval of C that the region's
-- ids come from (so before each id's R2, which is all the proof asks of it);
-- R2 and R3 are read for each id, R3 after R2.  The clock test of R3 is the
-- fast path's, hi > t << shift, written as the clock below the end of the
-- region's millisecond (lim, exact in microseconds), which is cheaper to
-- test than the millisecond is to compute.  What the fast path would not
-- accept goes to the slow path, snowflake_sql_next_slow, which gives that id
-- and moves the node to a new region if need be; the loop then reads G
-- again.  So the ids are those snowflake_nextval() would give, called n
-- times: unique and increasing, through an identity change, a clock that
-- steps back and other sessions taking ids at the same time.
--
-- A loop of PL/pgSQL statements, not a call per id: what costs
-- snowflake_nextval() most in a bulk query is the call itself.  The function
-- returns its ids all at once, when its first row is fetched (a PL/pgSQL set
-- is made whole before it is read): they are issued then.  Its caller needs
-- the rights snowflake_nextval() needs.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_generate(n integer)
RETURNS SETOF bigint
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE ROWS 1000
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    s @extschema@.snowflake_sql_config;
    left_ integer := n;   -- ids still to return
    hi bigint;            -- G, read once for each region
    lim timestamptz;      -- the end of G's millisecond
    a bigint;
BEGIN
    IF n < 1 OR n > 1000000 THEN
        RAISE EXCEPTION 'snowflake_generate: n must be between 1 and 1000000, not %', n
            USING ERRCODE = '22023';
    END IF;
    IF pg_is_in_recovery() THEN
        -- The slow path's error (nextval would give its own).
        RETURN NEXT @extschema@.snowflake_sql_next_slow();
    END IF;
    <<regions>>
    WHILE left_ > 0 LOOP
        -- The layout as baked now (the fast path's constants); a region
        -- the slow path published under a newer one is read at the next
        -- pass, after its lock brought the change in.
        s := @extschema@.snowflake_sql_settings();
        -- R1; NULL (no region: the unlogged G after a crash) reads as 0,
        -- which no id is below.
        hi := coalesce(pg_sequence_last_value('@extschema@.snowflake_sql_bound'::regclass), 0);
        -- The ids of G's region: those below G; t <= the region's
        -- millisecond while the clock is below lim (no region, G = 0: lim is
        -- the epoch).
        lim := to_timestamp(0)
               + ((((hi - 1) >> (s.datacenter_bits + s.worker_bits + s.sequence_bits))
                   + s.epoch_ms + 1) * INTERVAL '1 millisecond');
        FOR i IN 1 .. left_ LOOP
            a := nextval('@extschema@.snowflake_sql_counter'::regclass);       -- R2
            IF a >= hi OR clock_timestamp() >= lim THEN                       -- R3
                -- i - 1 ids returned from the region, one from the slow path.
                left_ := left_ - i;
                RETURN NEXT @extschema@.snowflake_sql_next_slow();
                CONTINUE regions;
            END IF;
            RETURN NEXT a;
        END LOOP;
        RETURN;
    END LOOP;
END
$fn$;
COMMENT ON FUNCTION @extschema@.snowflake_generate(integer) IS
    'n ids of this node (1 to 1,000,000), in increasing order';
