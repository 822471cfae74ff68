-- Every id made after this call is above id: for a node that takes over from
-- another one (the C extension, or this edition elsewhere) whose ids may run
-- ahead of this node's clock.  The millisecond of id and every one before it
-- count as used up; if they are ahead of the clock, the clock policy applies
-- as after a step back (further ahead than max_clock_backward_ms: refused).
-- Owner only.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_start_above(id bigint)
RETURNS void
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    s @extschema@.snowflake_sql_config := @extschema@.snowflake_sql_settings();
    owner_name name;
    shift integer;
    span bigint;
    m bigint;
    t bigint;             -- the clock, ms since the epoch
    hi bigint;
    mark bigint;
    used_up bigint;
BEGIN
    SELECT c.relowner::regrole::name INTO owner_name
    FROM pg_catalog.pg_class c WHERE c.oid = '@extschema@.snowflake_sql_config'::regclass;
    IF NOT pg_catalog.pg_has_role(CURRENT_USER, owner_name, 'USAGE') THEN
        RAISE EXCEPTION 'only the owner of the snowflake_sql objects (%) can move the node''s ids',
                        owner_name
            USING ERRCODE = '42501';
    END IF;
    IF id < 0 THEN
        PERFORM @extschema@.snowflake_sql_invalid_id(id);
    END IF;
    IF s.worker_id IS NULL THEN
        RAISE EXCEPTION 'the snowflake node identity is not configured'
            USING ERRCODE = '55000',
                  HINT = 'Run snowflake_configure first.';
    END IF;
    shift := s.datacenter_bits + s.worker_bits + s.sequence_bits;
    span := 1::bigint << s.sequence_bits;
    m := id >> shift;
    -- As the C extension: an id further ahead of the clock than the policy's
    -- bound would leave the node unable to issue ids until the clock got there.
    t := pg_catalog.floor(EXTRACT(epoch FROM pg_catalog.clock_timestamp()) * 1000)::bigint - s.epoch_ms;
    IF m - t > s.max_clock_backward_ms THEN
        RAISE EXCEPTION 'snowflake id % is % ms ahead of the clock', id, m - t
            USING ERRCODE = '22023',
                  DETAIL = format('Ids after it could be issued only once the clock got there: '
                                  'more than max_clock_backward_ms (%s ms) ahead.',
                                  s.max_clock_backward_ms),
                  HINT = 'Check the id (an id of another epoch or layout?) and the clocks of both '
                         'nodes.';
    END IF;
    used_up := ((m << shift) | (s.datacenter_id::bigint << (s.worker_bits + s.sequence_bits))
                | (s.worker_id::bigint << s.sequence_bits)) + span;
    -- Under the lock, in a block that always ends rolled back (014_lock.sql).
    BEGIN
        LOCK TABLE ONLY @extschema@.snowflake_sql_lock IN SHARE UPDATE EXCLUSIVE MODE;
        hi := coalesce(pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_bound'), 0);
        IF hi = 0 OR (hi - 1) >> shift <= m THEN
            -- A region at the millisecond of id, published used up: C at its
            -- bound first, then the bound.  Nothing of it is ever issued.
            IF hi > 0 AND (hi - 1) >> shift = m THEN
                used_up := greatest(used_up, hi);
            END IF;
            PERFORM pg_catalog.setval('@extschema@.snowflake_sql_counter', used_up, true);
            PERFORM pg_catalog.setval('@extschema@.snowflake_sql_bound', used_up, true);
        END IF;
        -- Across a crash too: the durable mark above m (the call's commit
        -- flushes it; the two sequences above are unlogged), and above the
        -- region published.  Another database's mark (NULL) is replaced.
        mark := @extschema@.snowflake_sql_mark_ms(s.mark_tag);
        IF hi > 0 THEN
            m := greatest(m, (hi - 1) >> shift);
        END IF;
        IF mark IS NULL OR mark <= m THEN
            PERFORM @extschema@.snowflake_sql_set_mark(m + 1, s.mark_tag);
        END IF;
        RAISE SQLSTATE 'SF001';
    EXCEPTION WHEN SQLSTATE 'SF001' THEN
        NULL;
    END;
END
$fn$;
REVOKE ALL ON FUNCTION @extschema@.snowflake_start_above(bigint) FROM PUBLIC;
COMMENT ON FUNCTION @extschema@.snowflake_start_above(bigint) IS
    'make every later id of this node greater than id (owner only)';

