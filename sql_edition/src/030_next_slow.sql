-- ===========================================================================
-- The slow path
-- ===========================================================================

-- Everything snowflake_nextval's expression does not take itself: a new
-- region (a new millisecond, the first id, the sequence of a millisecond used
-- up, a new identity), the clock policies, and the errors.  SECURITY DEFINER:
-- it sets the sequences, which callers may not.  See the top of this file for
-- why the ids are unique.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_next_slow()
RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    s @extschema@.snowflake_sql_config := @extschema@.snowflake_sql_settings();
    shift integer;
    span bigint;          -- ids per millisecond: 2^sequence_bits
    node bigint;          -- this node's identity bits, in place
    node_mask bigint;
    max_ms bigint;        -- the layout's last millisecond
    t bigint;             -- the clock, ms since the epoch
    hi bigint;            -- G
    mark bigint;          -- M: every region published is below this millisecond
    g bigint;             -- the millisecond of the published region
    same_node boolean;
    m bigint;             -- the millisecond of a new region
    a bigint;
    id bigint;
    unused bigint;        -- what setval returns
    nap_ms integer;
    wait_until timestamptz;   -- policy wait: when to give up
BEGIN
    IF pg_is_in_recovery() THEN
        RAISE EXCEPTION 'cannot generate snowflake ids during recovery'
            USING ERRCODE = '25006',
                  DETAIL = 'A standby shares its primary''s node identity; ids made here could '
                           'collide with the primary''s.';
    END IF;
    -- Two IFs, not one AND: a condition with a subquery runs through the
    -- executor on every call, even where its first operand is false.
    IF s.worker_id IS NULL THEN
        IF EXISTS (SELECT 1 FROM @extschema@.snowflake_sql_config) THEN
            -- Configured, but not baked: a data-only restore with its
            -- triggers disabled wrote the row.  Bake it now.
            PERFORM @extschema@.snowflake_sql_bake();
            s := @extschema@.snowflake_sql_settings();
        END IF;
    END IF;
    IF s.worker_id IS NULL THEN
        RAISE EXCEPTION 'the snowflake node identity is not configured'
            USING ERRCODE = '55000',
                  HINT = format('Run SELECT snowflake_configure(worker_id => N) as the owner of '
                                'the snowflake_sql objects, with an N from 0 to %s that no other '
                                'node of datacenter 0 uses.', (1 << s.worker_bits) - 1);
    END IF;
    shift := s.datacenter_bits + s.worker_bits + s.sequence_bits;
    span := 1::bigint << s.sequence_bits;
    node := (s.datacenter_id::bigint << (s.worker_bits + s.sequence_bits))
            | (s.worker_id::bigint << s.sequence_bits);
    node_mask := ((1::bigint << shift) - 1) # (span - 1);
    max_ms := (1::bigint << (63 - shift)) - 1;
    LOOP
        -- Another session may have published this millisecond's region
        -- already: take an id the way snowflake_nextval does (R1, R2, R3).
        t := floor(EXTRACT(epoch FROM pg_catalog.clock_timestamp()) * 1000)::bigint
             - s.epoch_ms;
        IF t >= 0 AND pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_bound')
                      > GREATEST(pg_catalog.nextval('@extschema@.snowflake_sql_counter'), t << shift) THEN
            RETURN pg_catalog.currval('@extschema@.snowflake_sql_counter');
        END IF;

        id := NULL;
        nap_ms := NULL;
        -- Under the lock (014_lock.sql), in a block that always ends rolled
        -- back, which releases it; the sequences and the variables keep what
        -- the block did.
        BEGIN
            LOCK TABLE ONLY @extschema@.snowflake_sql_lock IN SHARE UPDATE EXCLUSIVE MODE;
            -- The identity as committed now: taking the lock processed the
            -- invalidations of every configuration committed before it, so
            -- this reads the current settings, not a constant folded into a
            -- plan when a running statement (or an old snapshot) began.
            s := @extschema@.snowflake_sql_settings();
            IF s.worker_id IS NULL THEN
                RAISE EXCEPTION 'the snowflake node identity is not configured'
                    USING ERRCODE = '55000';
            END IF;
            node := (s.datacenter_id::bigint << (s.worker_bits + s.sequence_bits))
                    | (s.worker_id::bigint << s.sequence_bits);
            t := floor(EXTRACT(epoch FROM pg_catalog.clock_timestamp()) * 1000)::bigint
                 - s.epoch_ms;
            IF t < 0 THEN
                RAISE EXCEPTION 'system clock is % ms before the snowflake epoch', -t
                    USING ERRCODE = '55000',
                          DETAIL = 'Ids count milliseconds from the epoch; no id can be made before it.',
                          HINT = 'Check the time source (NTP) of this server, or the epoch_ms '
                                 'given to snowflake_configure.';
            END IF;
            hi := coalesce(pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_bound'), 0);
            -- NULL: written by another database (replication); rewritten
            -- below with the next region.
            mark := @extschema@.snowflake_sql_mark_ms(s.mark_tag);
            m := NULL;
            IF hi > 0 THEN
                g := (hi - 1) >> shift;
                same_node := ((hi - 1) & node_mask) = node;
            ELSIF mark IS NULL THEN
                RAISE EXCEPTION 'the durable mark of this snowflake node was written by another database'
                    USING ERRCODE = '55000',
                          DETAIL = 'snowflake_sql_mark holds a value with another tag (logical '
                                   'replication of sequences, FOR ALL SEQUENCES, copies another node''s; '
                                   'an identity change rolled back leaves its own), and the node '
                                   'restarted since: where its ids stopped is not known.',
                          HINT = 'Leave the snowflake_sql_* sequences out of publications, then run '
                                 'SELECT snowflake_start_above(coalesce(max(id), 0)) over the tables '
                                 'that hold this node''s ids, as the owner.';
            ELSE
                -- No region (none yet, or the unlogged sequences were reset by
                -- a crash): as if the millisecond before the mark were used up.
                g := mark - 1;
                same_node := false;
            END IF;
            -- The published region, if it is this node's and the clock's (or,
            -- with policy borrow, ahead of the clock within the bound).
            IF hi > 0 AND same_node
               AND (g = t OR (g > t AND s.clock_backward_policy = 'borrow'
                              AND g - t <= s.max_clock_backward_ms)) THEN
                a := pg_catalog.nextval('@extschema@.snowflake_sql_counter');
                IF a < hi THEN
                    id := a;
                END IF;
            END IF;
            IF id IS NULL THEN
                IF t > g THEN
                    m := t;
                ELSIF t = g THEN
                    -- This millisecond's sequence is used up (or the identity
                    -- changed within it): the next millisecond, once the
                    -- clock is there, whatever the policy.
                    nap_ms := 1;
                ELSIF s.clock_backward_policy = 'error' THEN
                    RAISE EXCEPTION 'system clock moved backwards by % ms', g - t
                        USING ERRCODE = '55000',
                              DETAIL = format('The clock_backward_policy of snowflake_configure is '
                                              '"error" (max_clock_backward_ms = %s ms).',
                                              s.max_clock_backward_ms),
                              HINT = 'No id was issued: it could have duplicated or undercut one '
                                     'already issued. Check the time source (NTP) of this server.';
                ELSIF s.clock_backward_policy = 'wait' THEN
                    wait_until := coalesce(wait_until, pg_catalog.clock_timestamp()
                                           + s.max_clock_backward_ms * INTERVAL '1 millisecond');
                    IF pg_catalog.clock_timestamp() >= wait_until THEN
                        RAISE EXCEPTION 'system clock moved backwards by % ms', g - t
                            USING ERRCODE = '55000',
                                  DETAIL = format('The clock_backward_policy of snowflake_configure '
                                                  'is "wait" and the clock did not catch up within '
                                                  'max_clock_backward_ms (%s ms).',
                                                  s.max_clock_backward_ms),
                                  HINT = 'No id was issued: it could have duplicated or undercut '
                                         'one already issued. Check the time source (NTP) of this '
                                         'server.';
                    END IF;
                    nap_ms := least(g - t, 10)::integer;
                ELSE
                    -- borrow: count on in the millisecond after the region's.
                    m := g + 1;
                    IF m - t > s.max_clock_backward_ms THEN
                        RAISE EXCEPTION 'system clock moved backwards by % ms', m - t
                            USING ERRCODE = '55000',
                                  DETAIL = format('The clock_backward_policy of snowflake_configure '
                                                  'is "borrow" and issuing an id would run ahead of '
                                                  'the clock by more than max_clock_backward_ms '
                                                  '(%s ms).', s.max_clock_backward_ms),
                                  HINT = 'No id was issued: it could have duplicated or undercut '
                                         'one already issued. Check the time source (NTP) of this '
                                         'server.';
                    END IF;
                END IF;
                IF m IS NOT NULL THEN
                    IF m > max_ms THEN
                        RAISE EXCEPTION 'snowflake ids are exhausted: timestamp % ms is past the '
                                        'layout''s lifetime', m
                            USING ERRCODE = '22003',
                                  DETAIL = format('With %s timestamp bits the last usable '
                                                  'millisecond is %s ms after the epoch.',
                                                  63 - shift, max_ms);
                    END IF;
                    -- The layout the ids are made under: refused if it
                    -- could collide with earlier ids, written if new.
                    IF pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_layout')
                       IS DISTINCT FROM (s.epoch_ms << 15) | (s.datacenter_bits << 10)
                                        | (s.worker_bits << 5) | s.sequence_bits THEN
                        PERFORM pg_catalog.setval('@extschema@.snowflake_sql_layout',
                            @extschema@.snowflake_sql_layout_guard(s.epoch_ms, s.datacenter_bits,
                                                                   s.worker_bits, s.sequence_bits),
                            true);
                    END IF;
                    -- The durable mark first, above m and ahead by up to a
                    -- second (at most the clock policy's bound): its WAL
                    -- record precedes the region's publication, so the
                    -- commit of any transaction that used an id of it
                    -- flushes the mark too.
                    IF mark IS NULL OR m >= mark THEN
                        PERFORM @extschema@.snowflake_sql_set_mark(
                            least(m + 1 + least(1000, s.max_clock_backward_ms), max_ms + 1), s.mark_tag);
                    END IF;
                    -- A new region: C first (J1), then its publication (J2);
                    -- assignments, which PL/pgSQL evaluates without the
                    -- executor a PERFORM runs.
                    id := (m << shift) | node;
                    unused := pg_catalog.setval('@extschema@.snowflake_sql_counter', id, true);
                    unused := pg_catalog.setval('@extschema@.snowflake_sql_bound', id + span, true);
                END IF;
            END IF;
            RAISE SQLSTATE 'SF001';   -- ends the block rolled back: the lock goes
        EXCEPTION WHEN SQLSTATE 'SF001' THEN
            NULL;
        END;
        IF id IS NOT NULL THEN
            RETURN id;
        END IF;
        PERFORM pg_catalog.pg_sleep(nap_ms / 1000.0);
    END LOOP;
END
$fn$;
REVOKE ALL ON FUNCTION @extschema@.snowflake_sql_next_slow() FROM PUBLIC;
COMMENT ON FUNCTION @extschema@.snowflake_sql_next_slow() IS
    'snowflake_sql: the part of snowflake_nextval() that moves to a new millisecond (internal)';

