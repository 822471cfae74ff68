-- snowflake_sql: the SQL edition of snowflake (SPEC section 8).
--
-- SQL and PL/pgSQL only: no C, no preloading, no file on the server, no
-- superuser.  `make sql-edition` turns this one file into both ways to install
-- it: dist/snowflake_sql_pg_tle.sql (pg_tle's install_extension, then CREATE
-- EXTENSION snowflake_sql) and dist/snowflake_sql.sql (a plain script for
-- psql -f, by any role with CREATE on a schema).  So the file must run
-- unchanged as an extension script, as an extension update script (from any
-- earlier version), and as a plain script run again over an older install:
-- every statement is idempotent (CREATE OR REPLACE, IF NOT EXISTS) and the
-- state objects are never recreated.  The objects go into the current schema.
--
-- Ids have the C extension's layout and epoch (configurable with
-- snowflake_configure, like the C extension's settings), and the functions
-- that both editions have carry the same names and signatures.
--
-- ===========================================================================
-- How ids are made, and why no id is ever handed out twice
-- ===========================================================================
--
-- State, per database (the node): two sequences, both CACHE 1.
--   snowflake_sql_counter (C)  counts in id units: its values ARE ids.
--   snowflake_sql_bound   (G)  the published region: every id of the
--                              current region is below it.
-- A region is the ids of one millisecond m for this node's identity: from
--   base(m) = m << shift | node  up to  G = base(m) + 2^sequence_bits,
-- excluded; G of a later millisecond is above every id of an earlier one.
--
-- Taking an id (the fast path, snowflake_nextval, one SQL expression):
--   R1  hi := last value of G
--   R2  a  := nextval(C)
--   R3  read the clock t; accept a  iff  a < hi  and  hi > t << shift
--       (the region is not older than the clock's millisecond).
-- Anything else goes to the slow path (snowflake_sql_next_slow), which moves
-- to a new region m under a session advisory lock held only inside the call:
--   J1  setval(C, base(m))      (the caller takes base(m) itself)
--   J2  setval(G, base(m) + 2^sequence_bits)   -- publication, after J1
-- with m greater than the millisecond of every region published before.
--
-- Claim: an id accepted (by the fast path, or by the slow path, which takes
-- ids the same way, R1..R3, or is the jumper taking base(m)) is accepted by
-- no other call.
--  * Every accepted a lies in the region published before its R1: G only
--    grows, and after a region's publication (J2) C is at or above its base
--    (J1 came first), so a >= base(region read at R1), and a < hi bounds it
--    above.  (Regions only grow: a later J1 sets C to a higher base.)
--  * Within a region, C hands out each value once between two setvals.  A
--    value can be handed out twice only if a setval moved C back to or below
--    it.  J1 of region m sets C to base(m) while C may already have counted
--    into region m or beyond (values handed out between the reader's R2 and
--    the jump): such a value v >= base(m) was handed out *before* J1, so
--    before J2, so its reader's R1 saw a region below m, whose hi <= base(m)
--    <= v: the reader rejected v.  Values of earlier regions are never handed
--    out again (C never goes back below base(m) > every earlier region).
--  * Hence each accepted value is handed out exactly once, and values of
--    different regions differ (different milliseconds).  Ids are increasing
--    in the order C hands them out: within a region C counts up; a new
--    region's base is above every id of every earlier region.
-- The order R1 before R2 is what makes this hold: it is written as the left
-- operand of a comparison whose right operand holds R2; PostgreSQL evaluates
-- a function's (and an operator's) arguments in order.  Counting in id units
-- means more than 2^sequence_bits ids in a millisecond carry out of the
-- region into the node bits: such values are >= hi and rejected, never
-- issued; the slow path then waits for the next millisecond.
--
-- No session waits for another session's transaction: nextval, setval and
-- reading a sequence never wait for transactions; the slow path's advisory
-- lock is a session lock taken and released within the call (and released if
-- the call fails or is cancelled).
--
-- Crashes: sequences are WAL-logged ahead of use (like serial), and every
-- setval and every 32nd nextval makes the transaction's commit flush the WAL.
-- An id used by a transaction that committed is never handed out again; an id
-- given to a transaction that never committed (or that committed without
-- writing anything, like a bare SELECT snowflake_nextval()) may be handed out
-- again after a crash -- the same rule as serial.
-- ===========================================================================

-- Objects go into the current schema; names are resolved with pg_catalog
-- first (it is not listed, so PostgreSQL searches it first) and pg_temp last,
-- so that nothing in another schema, or a temporary object, can stand in for
-- an object of this edition.  Functions written in PL/pgSQL keep this
-- search_path (SET search_path FROM CURRENT); SQL functions with a standard
-- body (RETURN, BEGIN ATOMIC) resolve every name when they are created.
DO $guard$
BEGIN
    IF pg_catalog.current_schema() IS NULL THEN
        RAISE EXCEPTION 'snowflake_sql: no schema to install into'
            USING ERRCODE = '3F000',
                  HINT = 'Set search_path to a schema you may create objects in.';
    END IF;
    IF pg_catalog.current_schema() IN ('pg_catalog', 'information_schema') THEN
        RAISE EXCEPTION 'snowflake_sql: will not install into schema %', pg_catalog.current_schema()
            USING ERRCODE = '42501',
                  HINT = 'Set search_path to a schema of your own first.';
    END IF;
    -- Until the end of the transaction (the script runs in one).
    PERFORM pg_catalog.set_config('search_path',
                                  pg_catalog.quote_ident(pg_catalog.current_schema()) || ', pg_temp',
                                  true);
END
$guard$;

-- ===========================================================================
-- State
-- ===========================================================================

-- The node's configuration: one row, written by snowflake_configure (its
-- owner only).  pg_dump keeps it (it is the extension's configuration table).
CREATE TABLE IF NOT EXISTS snowflake_sql_config (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    epoch_ms bigint NOT NULL,
    datacenter_bits integer NOT NULL,
    worker_bits integer NOT NULL,
    sequence_bits integer NOT NULL,
    datacenter_id integer NOT NULL,
    worker_id integer NOT NULL,
    clock_backward_policy text NOT NULL,
    max_clock_backward_ms integer NOT NULL,
    configured_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    configured_by name NOT NULL DEFAULT CURRENT_USER
);
COMMENT ON TABLE snowflake_sql_config IS
    'snowflake_sql: this database''s node identity, layout and clock policy (set by snowflake_configure)';

-- G before C, in creation order and by name: pg_dump (of the plain script's
-- objects) reads and restores them in that order, so a restored C is never
-- below the restored G's region.
CREATE SEQUENCE IF NOT EXISTS snowflake_sql_bound AS bigint MINVALUE 0 START 0 CACHE 1 NO CYCLE;
CREATE SEQUENCE IF NOT EXISTS snowflake_sql_counter AS bigint MINVALUE 0 START 0 CACHE 1 NO CYCLE;
COMMENT ON SEQUENCE snowflake_sql_bound IS
    'snowflake_sql: upper bound of the published region of ids (0: none yet)';
COMMENT ON SEQUENCE snowflake_sql_counter IS
    'snowflake_sql: the node''s id counter (values at or above snowflake_sql_bound are never issued)';
-- "No region" reads as 0 (a fresh sequence reads as NULL).
DO $fresh$
BEGIN
    IF pg_catalog.pg_sequence_last_value('snowflake_sql_bound') IS NULL THEN
        PERFORM pg_catalog.setval('snowflake_sql_bound', 0, true);
    END IF;
END
$fresh$;

-- pg_dump keeps the configuration (the identity belongs to the database's
-- data); the sequences are not dumped: a restored database starts with no
-- region, so it never reuses one.  Only possible inside CREATE EXTENSION.
DO $dump$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_depend d
               WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
                 AND d.objid = 'snowflake_sql_config'::pg_catalog.regclass
                 AND d.deptype = 'e') THEN
        PERFORM pg_catalog.pg_extension_config_dump('snowflake_sql_config', '');
    END IF;
END
$dump$;

REVOKE ALL ON TABLE snowflake_sql_config FROM PUBLIC;
GRANT SELECT ON TABLE snowflake_sql_config TO PUBLIC;
-- The fast path runs as its caller: nextval and currval of C (USAGE: no
-- setval), and reading G (SELECT: no nextval or setval).
REVOKE ALL ON SEQUENCE snowflake_sql_counter FROM PUBLIC;
GRANT USAGE ON SEQUENCE snowflake_sql_counter TO PUBLIC;
REVOKE ALL ON SEQUENCE snowflake_sql_bound FROM PUBLIC;
GRANT SELECT ON SEQUENCE snowflake_sql_bound TO PUBLIC;

-- ===========================================================================
-- Helpers
-- ===========================================================================

CREATE OR REPLACE FUNCTION snowflake_sql_version()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN '@SNOWFLAKE_SQL_VERSION@';
COMMENT ON FUNCTION snowflake_sql_version() IS 'version of the snowflake SQL edition installed here';

-- Raises an error; returns the type of its first argument so that it can
-- stand in any expression.  STABLE, not IMMUTABLE: the planner never runs it
-- to fold constants, so a branch that is not taken never raises.
CREATE OR REPLACE FUNCTION snowflake_sql_raise(
    result_type anyelement, sqlstate text, message text, detail text DEFAULT NULL,
    hint text DEFAULT NULL)
RETURNS anyelement
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path FROM CURRENT
AS $fn$
BEGIN
    -- An empty DETAIL or HINT would still be printed: leave absent ones out.
    IF detail IS NULL AND hint IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message;
    ELSIF hint IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, DETAIL = detail;
    ELSIF detail IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, HINT = hint;
    END IF;
    RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, DETAIL = detail, HINT = hint;
END
$fn$;

-- Text quoted in a message: cut to 40 bytes on a character boundary and
-- marked with "..." (the C extension's rule: the text may be megabytes).
CREATE OR REPLACE FUNCTION snowflake_sql_quote(s text)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN pg_catalog.octet_length(s) <= 40 THEN s
                ELSE (SELECT pg_catalog.left(s, n) FROM pg_catalog.generate_series(0, 40) n
                      WHERE pg_catalog.octet_length(pg_catalog.left(s, n)) <= 40
                      ORDER BY n DESC LIMIT 1) || '...'
           END;
END;

CREATE OR REPLACE FUNCTION snowflake_sql_invalid_id(result_type anyelement, id bigint)
RETURNS anyelement
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path FROM CURRENT
AS $fn$
BEGIN
    RAISE EXCEPTION 'invalid snowflake id: %', id
        USING ERRCODE = '22023', DETAIL = 'snowflake ids are non-negative';
END
$fn$;

-- The instant unix_ms milliseconds after 1970-01-01 UTC, exactly (no
-- floating point), or the C extension's error outside timestamptz's range.
CREATE OR REPLACE FUNCTION snowflake_sql_ms_to_ts(unix_ms bigint)
RETURNS timestamptz
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN CASE
    WHEN unix_ms < -210866803200000 OR unix_ms >= 9224318016000000 THEN
        snowflake_sql_raise(NULL::timestamptz, '22008',
                            'timestamp out of range: ' || unix_ms || ' ms after 1970-01-01')
    ELSE (TIMESTAMP '1970-01-01 00:00:00' + (unix_ms / 86400000) * INTERVAL '1 day'
          + (unix_ms % 86400000) * INTERVAL '1 millisecond') AT TIME ZONE 'UTC'
END;

-- Microseconds (numeric, exact) from 1970-01-01 UTC to a finite instant.
-- Measured from 2000-01-01, where timestamptz's arithmetic cannot overflow.
CREATE OR REPLACE FUNCTION snowflake_sql_unix_us(ts timestamptz)
RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN EXTRACT(epoch FROM ts - TIMESTAMPTZ '2000-01-01 00:00:00+00') * 1000000
       + 946684800000000;

-- The id bound of a finite time, as the C extension computes it
-- (src/core/time_bounds.cpp): the first id made at the millisecond
-- unix_ms or later (clamped to 0 before the epoch; NULL past the lifetime),
-- or the last id made at unix_ms or earlier (NULL before the epoch; the
-- largest id past the lifetime).
CREATE OR REPLACE FUNCTION snowflake_sql_first_id_from(unix_ms bigint, epoch_ms bigint, shift integer)
RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE
    WHEN unix_ms - epoch_ms > (1::bigint << (63 - shift)) - 1 THEN NULL
    ELSE GREATEST(unix_ms - epoch_ms, 0) << shift
END;

CREATE OR REPLACE FUNCTION snowflake_sql_last_id_through(unix_ms bigint, epoch_ms bigint, shift integer)
RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE
    WHEN unix_ms < epoch_ms THEN NULL
    WHEN unix_ms - epoch_ms > (1::bigint << (63 - shift)) - 1 THEN 9223372036854775807
    ELSE ((unix_ms - epoch_ms) << shift) | ((1::bigint << shift) - 1)
END;

-- Checks epoch and widths given as arguments, with the C extension's
-- messages and in its order; returns the timestamp shift.
CREATE OR REPLACE FUNCTION snowflake_sql_layout_shift(
    epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS integer
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path FROM CURRENT
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

-- ===========================================================================
-- The slow path
-- ===========================================================================

-- Everything snowflake_nextval's expression does not take itself: a new
-- region (a new millisecond, the first id, the sequence of a millisecond used
-- up, a new identity), the clock policies, and the errors.  SECURITY DEFINER:
-- it sets the sequences, which callers may not.  See the top of this file for
-- why the ids are unique.
CREATE OR REPLACE FUNCTION snowflake_sql_next_slow()
RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SECURITY DEFINER
SET search_path FROM CURRENT
AS $fn$
DECLARE
    s snowflake_sql_config := snowflake_sql_settings();
    shift integer;
    span bigint;          -- ids per millisecond: 2^sequence_bits
    node bigint;          -- this node's identity bits, in place
    node_mask bigint;
    max_ms bigint;        -- the layout's last millisecond
    lock_key bigint := (1936617335::bigint << 32)   -- 'snow'
                       | 'snowflake_sql_counter'::regclass::oid::bigint;
    t bigint;             -- the clock, ms since the epoch
    hi bigint;            -- G
    g bigint;             -- the millisecond of the published region
    same_node boolean;
    m bigint;             -- the millisecond of a new region
    a bigint;
    id bigint;
    nap_ms integer;
    wait_until timestamptz;   -- policy wait: when to give up
BEGIN
    IF pg_is_in_recovery() THEN
        RAISE EXCEPTION 'cannot generate snowflake ids during recovery'
            USING ERRCODE = '25006',
                  DETAIL = 'A standby shares its primary''s node identity; ids made here could '
                           'collide with the primary''s.';
    END IF;
    IF s.worker_id IS NULL AND EXISTS (SELECT 1 FROM snowflake_sql_config) THEN
        -- Configured, but not baked: a data-only restore with its triggers
        -- disabled wrote the row.  Bake it now.
        PERFORM snowflake_sql_bake();
        s := snowflake_sql_settings();
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
        IF t >= 0 AND pg_catalog.pg_sequence_last_value('snowflake_sql_bound')
                      > GREATEST(pg_catalog.nextval('snowflake_sql_counter'), t << shift) THEN
            RETURN pg_catalog.currval('snowflake_sql_counter');
        END IF;

        id := NULL;
        nap_ms := NULL;
        PERFORM pg_catalog.pg_advisory_lock(lock_key);
        BEGIN
            t := floor(EXTRACT(epoch FROM pg_catalog.clock_timestamp()) * 1000)::bigint
                 - s.epoch_ms;
            IF t < 0 THEN
                RAISE EXCEPTION 'system clock is % ms before the snowflake epoch', -t
                    USING ERRCODE = '55000',
                          DETAIL = 'Ids count milliseconds from the epoch; no id can be made before it.',
                          HINT = 'Check the time source (NTP) of this server, or the epoch_ms '
                                 'given to snowflake_configure.';
            END IF;
            hi := coalesce(pg_catalog.pg_sequence_last_value('snowflake_sql_bound'), 0);
            m := NULL;
            IF hi > 0 THEN
                g := (hi - 1) >> shift;
                same_node := ((hi - 1) & node_mask) = node;
            ELSE
                g := -1;
                same_node := false;
            END IF;
            -- The published region, if it is this node's and the clock's (or,
            -- with policy borrow, ahead of the clock within the bound).
            IF hi > 0 AND same_node
               AND (g = t OR (g > t AND s.clock_backward_policy = 'borrow'
                              AND g - t <= s.max_clock_backward_ms)) THEN
                a := pg_catalog.nextval('snowflake_sql_counter');
                IF a < hi THEN
                    id := a;
                END IF;
            END IF;
            IF id IS NULL THEN
                IF hi = 0 OR t > g THEN
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
                    -- A new region: C first (J1), then its publication (J2).
                    id := (m << shift) | node;
                    PERFORM pg_catalog.setval('snowflake_sql_counter', id, true);
                    PERFORM pg_catalog.setval('snowflake_sql_bound', id + span, true);
                END IF;
            END IF;
        EXCEPTION WHEN OTHERS OR query_canceled THEN
            -- A session lock outlives the transaction: never leave it held.
            PERFORM pg_catalog.pg_advisory_unlock(lock_key);
            RAISE;
        END;
        PERFORM pg_catalog.pg_advisory_unlock(lock_key);
        IF id IS NOT NULL THEN
            RETURN id;
        END IF;
        PERFORM pg_catalog.pg_sleep(nap_ms / 1000.0);
    END LOOP;
END
$fn$;
COMMENT ON FUNCTION snowflake_sql_next_slow() IS
    'snowflake_sql: the part of snowflake_nextval() that moves to a new millisecond (internal)';

-- ===========================================================================
-- The configuration, baked into functions
-- ===========================================================================

-- snowflake_sql_settings() returns the configuration as constants, and
-- snowflake_nextval() has the epoch and the layout written into it: both are
-- rewritten from snowflake_sql_config whenever it changes (a trigger), so
-- every session sees a change when it commits, even one whose snapshot is
-- older (functions are catalog objects), and snowflake_nextval stays one SQL
-- expression that PostgreSQL inlines.  The uniqueness of ids does not depend
-- on these constants (only on G and C); they make the ids the right ones.
CREATE OR REPLACE FUNCTION snowflake_sql_bake()
RETURNS void
LANGUAGE plpgsql VOLATILE
SECURITY DEFINER
SET search_path FROM CURRENT
AS $fn$
DECLARE
    c snowflake_sql_config;
BEGIN
    SELECT * INTO c FROM snowflake_sql_config;
    IF NOT FOUND THEN
        -- Not configured: the C extension's default layout, no identity.
        c := ROW(true, 1288834974657, 5, 5, 12, 0, NULL, 'borrow', 10000, NULL, NULL);
    END IF;
    EXECUTE format($sql$
        CREATE OR REPLACE FUNCTION snowflake_sql_settings()
        RETURNS snowflake_sql_config
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN ROW(true, %s::bigint, %s, %s, %s, %s, %s::integer, %L, %s,
                   %L::timestamptz, %L::name)::snowflake_sql_config
        $sql$, c.epoch_ms, c.datacenter_bits, c.worker_bits, c.sequence_bits, c.datacenter_id,
        coalesce(c.worker_id::text, 'NULL'), c.clock_backward_policy, c.max_clock_backward_ms,
        c.configured_at, c.configured_by);
    -- The fast path: R1 (G) is the left operand, R2 (nextval) the first
    -- argument of GREATEST, R3 the clock.  The clock is the millisecond since
    -- the epoch shifted into id units: rounding (x - 0.5) is floor(x).
    EXECUTE format($sql$
        CREATE OR REPLACE FUNCTION snowflake_nextval()
        RETURNS bigint
        LANGUAGE sql VOLATILE PARALLEL UNSAFE
        RETURN COALESCE(
            CASE WHEN pg_catalog.pg_is_in_recovery() THEN NULL
                 WHEN pg_catalog.pg_sequence_last_value('snowflake_sql_bound'::pg_catalog.regclass)
                      > GREATEST(pg_catalog.nextval('snowflake_sql_counter'::pg_catalog.regclass),
                                 (pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) * 1000
                                  - %s)::bigint << %s)
                 THEN pg_catalog.currval('snowflake_sql_counter'::pg_catalog.regclass)
            END,
            snowflake_sql_next_slow())
        $sql$, c.epoch_ms + 0.5, c.datacenter_bits + c.worker_bits + c.sequence_bits);
    EXECUTE $sql$
        COMMENT ON FUNCTION snowflake_nextval() IS 'next unique, increasing id of this node (database)'
        $sql$;
END
$fn$;
REVOKE ALL ON FUNCTION snowflake_sql_bake() FROM PUBLIC;

-- Checks a configuration before it is written (by snowflake_configure, by
-- hand, or by a restore); snowflake_sql_config_apply bakes it once written.
-- Refuses what could collide with ids already made, as the C extension
-- refuses it at start: once this node has made ids, the widths cannot change
-- and the epoch cannot move later.
CREATE OR REPLACE FUNCTION snowflake_sql_config_check()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path FROM CURRENT
AS $fn$
DECLARE
    made boolean := pg_catalog.pg_sequence_last_value('snowflake_sql_bound') > 0;
    what text;
BEGIN
    PERFORM snowflake_sql_layout_shift(NEW.epoch_ms, NEW.datacenter_bits, NEW.worker_bits,
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

CREATE OR REPLACE FUNCTION snowflake_sql_config_apply()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path FROM CURRENT
AS $fn$
BEGIN
    PERFORM snowflake_sql_bake();
    RETURN NULL;
END
$fn$;
REVOKE ALL ON FUNCTION snowflake_sql_config_check() FROM PUBLIC;
REVOKE ALL ON FUNCTION snowflake_sql_config_apply() FROM PUBLIC;

CREATE OR REPLACE TRIGGER snowflake_sql_config_check
    BEFORE INSERT OR UPDATE ON snowflake_sql_config
    FOR EACH ROW EXECUTE FUNCTION snowflake_sql_config_check();
CREATE OR REPLACE TRIGGER snowflake_sql_config_apply
    AFTER INSERT OR UPDATE OR DELETE ON snowflake_sql_config
    FOR EACH ROW EXECUTE FUNCTION snowflake_sql_config_apply();

-- The functions the configuration is baked into, from the configuration in
-- the table (none on a first install; the node's own on an update).
DO $bake$ BEGIN PERFORM snowflake_sql_bake(); END $bake$;

-- ===========================================================================
-- Configuring the node
-- ===========================================================================

-- The node's identity (this database's), layout and clock policy.  Only the
-- owner of the snowflake_sql objects may call it; the values are kept in
-- snowflake_sql_config, where pg_dump keeps them, and no setting of a session
-- changes them.  A new identity applies from the next millisecond's ids on,
-- once the transaction commits.
CREATE OR REPLACE FUNCTION snowflake_configure(
    worker_id integer,
    datacenter_id integer DEFAULT 0,
    epoch_ms bigint DEFAULT 1288834974657,
    datacenter_bits integer DEFAULT 5,
    worker_bits integer DEFAULT 5,
    sequence_bits integer DEFAULT 12,
    clock_backward_policy text DEFAULT 'borrow',
    max_clock_backward_ms integer DEFAULT 10000)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path FROM CURRENT
AS $fn$
DECLARE
    owner_name name;
    arg text;
BEGIN
    SELECT c.relowner::regrole::name INTO owner_name
    FROM pg_catalog.pg_class c WHERE c.oid = 'snowflake_sql_config'::regclass;
    IF NOT pg_catalog.pg_has_role(CURRENT_USER, owner_name, 'USAGE') THEN
        RAISE EXCEPTION 'only the owner of the snowflake_sql objects (%) can configure the node',
                        owner_name
            USING ERRCODE = '42501';
    END IF;
    arg := CASE WHEN worker_id IS NULL THEN 'worker_id'
                WHEN datacenter_id IS NULL THEN 'datacenter_id'
                WHEN epoch_ms IS NULL THEN 'epoch_ms'
                WHEN datacenter_bits IS NULL THEN 'datacenter_bits'
                WHEN worker_bits IS NULL THEN 'worker_bits'
                WHEN sequence_bits IS NULL THEN 'sequence_bits'
                WHEN clock_backward_policy IS NULL THEN 'clock_backward_policy'
                WHEN max_clock_backward_ms IS NULL THEN 'max_clock_backward_ms' END;
    IF arg IS NOT NULL THEN
        RAISE EXCEPTION 'snowflake_configure: % must not be NULL', arg USING ERRCODE = '22004';
    END IF;
    -- Checked (and baked) by the table's triggers.
    UPDATE snowflake_sql_config c
    SET epoch_ms = snowflake_configure.epoch_ms,
        datacenter_bits = snowflake_configure.datacenter_bits,
        worker_bits = snowflake_configure.worker_bits,
        sequence_bits = snowflake_configure.sequence_bits,
        datacenter_id = snowflake_configure.datacenter_id,
        worker_id = snowflake_configure.worker_id,
        clock_backward_policy = pg_catalog.lower(snowflake_configure.clock_backward_policy),
        max_clock_backward_ms = snowflake_configure.max_clock_backward_ms,
        configured_at = pg_catalog.now(),
        configured_by = CURRENT_USER;
    IF NOT FOUND THEN
        INSERT INTO snowflake_sql_config (epoch_ms, datacenter_bits, worker_bits, sequence_bits,
                                          datacenter_id, worker_id, clock_backward_policy,
                                          max_clock_backward_ms)
        VALUES (epoch_ms, datacenter_bits, worker_bits, sequence_bits, datacenter_id, worker_id,
                pg_catalog.lower(clock_backward_policy), max_clock_backward_ms);
    END IF;
END
$fn$;
REVOKE ALL ON FUNCTION snowflake_configure(integer, integer, bigint, integer, integer, integer, text, integer)
    FROM PUBLIC;
COMMENT ON FUNCTION snowflake_configure(integer, integer, bigint, integer, integer, integer, text, integer) IS
    'set this node''s identity, layout and clock policy (owner only)';

-- Every id made after this call is above id: for a node that takes over from
-- another one (the C extension, or this edition elsewhere) whose ids may run
-- ahead of this node's clock.  The millisecond of id and every one before it
-- count as used up; if they are ahead of the clock, the clock policy applies
-- as after a step back.  Owner only.
CREATE OR REPLACE FUNCTION snowflake_start_above(id bigint)
RETURNS void
LANGUAGE plpgsql VOLATILE STRICT
SET search_path FROM CURRENT
AS $fn$
DECLARE
    s snowflake_sql_config := snowflake_sql_settings();
    owner_name name;
    shift integer;
    span bigint;
    lock_key bigint := (1936617335::bigint << 32) | 'snowflake_sql_counter'::regclass::oid::bigint;
    m bigint;
    hi bigint;
    used_up bigint;
BEGIN
    SELECT c.relowner::regrole::name INTO owner_name
    FROM pg_catalog.pg_class c WHERE c.oid = 'snowflake_sql_config'::regclass;
    IF NOT pg_catalog.pg_has_role(CURRENT_USER, owner_name, 'USAGE') THEN
        RAISE EXCEPTION 'only the owner of the snowflake_sql objects (%) can move the node''s ids',
                        owner_name
            USING ERRCODE = '42501';
    END IF;
    IF id < 0 THEN
        PERFORM snowflake_sql_invalid_id(NULL::bigint, id);
    END IF;
    IF s.worker_id IS NULL THEN
        RAISE EXCEPTION 'the snowflake node identity is not configured'
            USING ERRCODE = '55000',
                  HINT = 'Run snowflake_configure first.';
    END IF;
    shift := s.datacenter_bits + s.worker_bits + s.sequence_bits;
    span := 1::bigint << s.sequence_bits;
    m := id >> shift;
    used_up := ((m << shift) | (s.datacenter_id::bigint << (s.worker_bits + s.sequence_bits))
                | (s.worker_id::bigint << s.sequence_bits)) + span;
    PERFORM pg_catalog.pg_advisory_lock(lock_key);
    BEGIN
        hi := coalesce(pg_catalog.pg_sequence_last_value('snowflake_sql_bound'), 0);
        IF hi = 0 OR (hi - 1) >> shift <= m THEN
            -- A region at the millisecond of id, published used up: C at its
            -- bound first, then the bound.  Nothing of it is ever issued.
            IF hi > 0 AND (hi - 1) >> shift = m THEN
                used_up := greatest(used_up, hi);
            END IF;
            PERFORM pg_catalog.setval('snowflake_sql_counter', used_up, true);
            PERFORM pg_catalog.setval('snowflake_sql_bound', used_up, true);
        END IF;
    EXCEPTION WHEN OTHERS OR query_canceled THEN
        PERFORM pg_catalog.pg_advisory_unlock(lock_key);
        RAISE;
    END;
    PERFORM pg_catalog.pg_advisory_unlock(lock_key);
END
$fn$;
REVOKE ALL ON FUNCTION snowflake_start_above(bigint) FROM PUBLIC;
COMMENT ON FUNCTION snowflake_start_above(bigint) IS
    'make every later id of this node greater than id (owner only)';

-- ===========================================================================
-- Decoding (the C extension's functions, with the same results and errors)
-- ===========================================================================

-- With the configured layout (STABLE, as in the C extension: they read the
-- node's settings).
CREATE OR REPLACE FUNCTION snowflake_timestamp(id bigint)
RETURNS timestamptz
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN CASE WHEN id < 0 THEN snowflake_sql_invalid_id(NULL::timestamptz, id)
            ELSE snowflake_sql_ms_to_ts((snowflake_sql_settings()).epoch_ms
                                        + (id >> ((snowflake_sql_settings()).datacenter_bits
                                                  + (snowflake_sql_settings()).worker_bits
                                                  + (snowflake_sql_settings()).sequence_bits)))
       END;
COMMENT ON FUNCTION snowflake_timestamp(bigint) IS 'when an id was made: (snowflake_parse(id)).ts, faster';

CREATE OR REPLACE FUNCTION snowflake_sql_parse(
    id bigint, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer,
    OUT ts timestamptz, OUT unix_ms bigint, OUT datacenter_id integer, OUT worker_id integer,
    OUT sequence integer)
RETURNS record
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path FROM CURRENT
AS $fn$
DECLARE
    shift integer := snowflake_sql_layout_shift(epoch_ms, datacenter_bits, worker_bits, sequence_bits);
BEGIN
    IF id < 0 THEN
        PERFORM snowflake_sql_invalid_id(NULL::bigint, id);
    END IF;
    unix_ms := epoch_ms + (id >> shift);
    ts := snowflake_sql_ms_to_ts(unix_ms);
    datacenter_id := (id >> (worker_bits + sequence_bits)) & ((1::bigint << datacenter_bits) - 1);
    worker_id := (id >> sequence_bits) & ((1::bigint << worker_bits) - 1);
    sequence := id & ((1::bigint << sequence_bits) - 1);
END
$fn$;

CREATE OR REPLACE FUNCTION snowflake_parse(
    id bigint,
    OUT ts timestamptz,
    OUT unix_ms bigint,
    OUT datacenter_id integer,
    OUT worker_id integer,
    OUT sequence integer)
RETURNS record
LANGUAGE sql STABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT p.ts, p.unix_ms, p.datacenter_id, p.worker_id, p.sequence
    FROM snowflake_sql_parse(id, (snowflake_sql_settings()).epoch_ms,
                             (snowflake_sql_settings()).datacenter_bits,
                             (snowflake_sql_settings()).worker_bits,
                             (snowflake_sql_settings()).sequence_bits) p;
END;
COMMENT ON FUNCTION snowflake_parse(bigint) IS 'decode an id with the node''s epoch and layout';

CREATE OR REPLACE FUNCTION snowflake_parse(
    id bigint,
    epoch_ms bigint,
    datacenter_bits integer,
    worker_bits integer,
    sequence_bits integer,
    OUT ts timestamptz,
    OUT unix_ms bigint,
    OUT datacenter_id integer,
    OUT worker_id integer,
    OUT sequence integer)
RETURNS record
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT p.ts, p.unix_ms, p.datacenter_id, p.worker_id, p.sequence
    FROM snowflake_sql_parse(id, epoch_ms, datacenter_bits, worker_bits, sequence_bits) p;
END;
COMMENT ON FUNCTION snowflake_parse(bigint, bigint, integer, integer, integer) IS
    'decode an id under the given epoch and layout';

CREATE OR REPLACE FUNCTION snowflake_timestamp(
    id bigint, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path FROM CURRENT
AS $fn$
DECLARE
    shift integer := snowflake_sql_layout_shift(epoch_ms, datacenter_bits, worker_bits, sequence_bits);
BEGIN
    IF id < 0 THEN
        PERFORM snowflake_sql_invalid_id(NULL::bigint, id);
    END IF;
    RETURN snowflake_sql_ms_to_ts(epoch_ms + (id >> shift));
END
$fn$;
COMMENT ON FUNCTION snowflake_timestamp(bigint, bigint, integer, integer, integer) IS
    'when an id was made, under the given epoch and layout';

-- The smallest (or largest) id any node can make in the millisecond of ts,
-- or the C extension's error for a time that has none.
CREATE OR REPLACE FUNCTION snowflake_sql_ms_bound(
    ts timestamptz, largest boolean, epoch_ms bigint, shift integer)
RETURNS bigint
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path FROM CURRENT
SET DateStyle = 'ISO, MDY'   -- messages show times as the C extension does, in ISO form
AS $fn$
DECLARE
    max_ms bigint := (1::bigint << (63 - shift)) - 1;
    unix_ms bigint;
BEGIN
    IF NOT pg_catalog.isfinite(ts) THEN
        RAISE EXCEPTION 'timestamp "%" has no snowflake id',
                        CASE WHEN ts = '-infinity'::timestamptz THEN '-infinity' ELSE 'infinity' END
            USING ERRCODE = '22008',
                  DETAIL = 'Only finite times from the epoch to the end of the layout''s lifetime '
                           'map to ids.';
    END IF;
    unix_ms := floor(snowflake_sql_unix_us(ts) / 1000)::bigint;
    IF unix_ms < epoch_ms THEN
        RAISE EXCEPTION 'timestamp "%" is before the snowflake epoch', ts
            USING ERRCODE = '22008',
                  DETAIL = format('The epoch is %s.', snowflake_sql_ms_to_ts(epoch_ms));
    END IF;
    IF unix_ms - epoch_ms > max_ms THEN
        RAISE EXCEPTION 'timestamp "%" is past the end of the snowflake lifetime', ts
            USING ERRCODE = '22008',
                  DETAIL = format('The last millisecond the layout can represent is %s.',
                                  snowflake_sql_ms_to_ts(epoch_ms + max_ms));
    END IF;
    IF largest THEN
        RETURN ((unix_ms - epoch_ms) << shift) | ((1::bigint << shift) - 1);
    END IF;
    RETURN (unix_ms - epoch_ms) << shift;
END
$fn$;

CREATE OR REPLACE FUNCTION snowflake_min_id(ts timestamptz)
RETURNS bigint
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN snowflake_sql_ms_bound(ts, false, (snowflake_sql_settings()).epoch_ms,
                              (snowflake_sql_settings()).datacenter_bits
                              + (snowflake_sql_settings()).worker_bits
                              + (snowflake_sql_settings()).sequence_bits);
COMMENT ON FUNCTION snowflake_min_id(timestamptz) IS 'smallest id any node can make in the millisecond of ts';

CREATE OR REPLACE FUNCTION snowflake_max_id(ts timestamptz)
RETURNS bigint
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN snowflake_sql_ms_bound(ts, true, (snowflake_sql_settings()).epoch_ms,
                              (snowflake_sql_settings()).datacenter_bits
                              + (snowflake_sql_settings()).worker_bits
                              + (snowflake_sql_settings()).sequence_bits);
COMMENT ON FUNCTION snowflake_max_id(timestamptz) IS 'largest id any node can make in the millisecond of ts';

CREATE OR REPLACE FUNCTION snowflake_min_id(
    ts timestamptz, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path FROM CURRENT
AS $fn$
BEGIN
    RETURN snowflake_sql_ms_bound(ts, false, epoch_ms,
        snowflake_sql_layout_shift(epoch_ms, datacenter_bits, worker_bits, sequence_bits));
END
$fn$;
COMMENT ON FUNCTION snowflake_min_id(timestamptz, bigint, integer, integer, integer) IS
    'smallest id in the millisecond of ts, under the given epoch and layout';

CREATE OR REPLACE FUNCTION snowflake_max_id(
    ts timestamptz, epoch_ms bigint, datacenter_bits integer, worker_bits integer, sequence_bits integer)
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path FROM CURRENT
AS $fn$
BEGIN
    RETURN snowflake_sql_ms_bound(ts, true, epoch_ms,
        snowflake_sql_layout_shift(epoch_ms, datacenter_bits, worker_bits, sequence_bits));
END
$fn$;
COMMENT ON FUNCTION snowflake_max_id(timestamptz, bigint, integer, integer, integer) IS
    'largest id in the millisecond of ts, under the given epoch and layout';

-- id <@ period: the id was made within the range, its bounds and infinities
-- honoured; false for a negative id (made at no time).  A plain operator:
-- this edition has no planner support, so a condition on it reads every row
-- it is given; write bounds on the id for an index (docs/managed.md).
CREATE OR REPLACE FUNCTION snowflake_made_within(id bigint, period tstzrange)
RETURNS boolean
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path FROM CURRENT
AS $fn$
DECLARE
    s snowflake_sql_config := snowflake_sql_settings();
    shift integer := s.datacenter_bits + s.worker_bits + s.sequence_bits;
    lo bigint := 0;
    hi bigint := 9223372036854775807;
    b timestamptz;
    us numeric;
    ms bigint;
BEGIN
    IF id < 0 OR pg_catalog.isempty(period) THEN
        RETURN false;
    END IF;
    IF NOT pg_catalog.lower_inf(period) THEN
        b := pg_catalog.lower(period);
        IF b = 'infinity'::timestamptz THEN
            RETURN false;
        ELSIF b <> '-infinity'::timestamptz THEN
            us := snowflake_sql_unix_us(b);
            ms := floor(us / 1000)::bigint;
            -- made at b or later (inclusive), or after b
            IF pg_catalog.lower_inc(period) AND us % 1000 = 0 THEN
                lo := snowflake_sql_first_id_from(ms, s.epoch_ms, shift);
            ELSE
                lo := snowflake_sql_first_id_from(ms + 1, s.epoch_ms, shift);
            END IF;
            IF lo IS NULL THEN
                RETURN false;
            END IF;
        END IF;
    END IF;
    IF NOT pg_catalog.upper_inf(period) THEN
        b := pg_catalog.upper(period);
        IF b = '-infinity'::timestamptz THEN
            RETURN false;
        ELSIF b <> 'infinity'::timestamptz THEN
            us := snowflake_sql_unix_us(b);
            ms := floor(us / 1000)::bigint;
            -- made at b or earlier (inclusive), or before b
            IF pg_catalog.upper_inc(period) OR us % 1000 <> 0 THEN
                hi := snowflake_sql_last_id_through(ms, s.epoch_ms, shift);
            ELSE
                hi := snowflake_sql_last_id_through(ms - 1, s.epoch_ms, shift);
            END IF;
            IF hi IS NULL THEN
                RETURN false;
            END IF;
        END IF;
    END IF;
    RETURN id >= lo AND id <= hi;
END
$fn$;
COMMENT ON FUNCTION snowflake_made_within(bigint, tstzrange) IS
    'whether the id was made within the range (the <@ operator)';

DO $op$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_operator o
                   WHERE o.oprname = '<@' AND o.oprleft = 'bigint'::regtype
                     AND o.oprright = 'tstzrange'::regtype
                     AND o.oprnamespace = pg_catalog.current_schema()::regnamespace) THEN
        CREATE OPERATOR <@ (
            LEFTARG = bigint,
            RIGHTARG = tstzrange,
            FUNCTION = snowflake_made_within,
            RESTRICT = contsel,
            JOIN = contjoinsel);
    END IF;
END
$op$;
COMMENT ON OPERATOR <@ (bigint, tstzrange) IS 'id was made within the time range';

-- ===========================================================================
-- Text forms: base62, Crockford base32, hex; fixed width, so that they sort
-- like the ids (src/core/text_codec.cpp has the same rules)
-- ===========================================================================

CREATE OR REPLACE FUNCTION snowflake_sql_text_format(format text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path FROM CURRENT
AS $fn$
DECLARE
    f text := pg_catalog.translate(format, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
BEGIN
    IF f IN ('base62', 'base32', 'hex') THEN
        RETURN f;
    END IF;
    RAISE EXCEPTION 'unknown snowflake text format "%"', snowflake_sql_quote(format)
        USING ERRCODE = '22023', HINT = 'Valid formats are base62, base32 and hex.';
END
$fn$;

CREATE OR REPLACE FUNCTION snowflake_encode(id bigint, format text DEFAULT 'base62')
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path FROM CURRENT
AS $fn$
DECLARE
    f text := snowflake_sql_text_format(format);
    alphabet text;
    base integer;
    width integer;
    v bigint := id;
    out text := '';
BEGIN
    IF id < 0 THEN
        PERFORM snowflake_sql_invalid_id(NULL::bigint, id);
    END IF;
    IF f = 'hex' THEN
        RETURN pg_catalog.lpad(pg_catalog.to_hex(id), 16, '0');
    ELSIF f = 'base62' THEN
        alphabet := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
        base := 62;
        width := 11;
    ELSE
        alphabet := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
        base := 32;
        width := 13;
    END IF;
    FOR i IN 1 .. width LOOP
        out := pg_catalog.substr(alphabet, (v % base)::integer + 1, 1) || out;
        v := v / base;
    END LOOP;
    RETURN out;
END
$fn$;
COMMENT ON FUNCTION snowflake_encode(bigint, text) IS 'id as fixed-width base62, base32 (Crockford) or hex text';

CREATE OR REPLACE FUNCTION snowflake_decode(txt text, format text DEFAULT 'base62')
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path FROM CURRENT
AS $fn$
DECLARE
    f text := snowflake_sql_text_format(format);
    alphabet text;
    base integer;
    ch text;
    d integer;
    v numeric := 0;
    any_digit boolean := false;
    overflow boolean := false;
    width integer;
    hint text;
BEGIN
    IF f = 'base62' THEN
        alphabet := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
        base := 62;
    ELSIF f = 'base32' THEN
        alphabet := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
        base := 32;
    ELSE
        alphabet := '0123456789abcdef';
        base := 16;
    END IF;
    FOR i IN 1 .. pg_catalog.length(txt) LOOP
        ch := pg_catalog.substr(txt, i, 1);
        IF f = 'base32' THEN
            CONTINUE WHEN ch = '-';
            -- Crockford: case-insensitive; O reads as 0, I and L as 1.
            ch := pg_catalog.translate(ch, 'abcdefghijklmnopqrstuvwxyzOIL',
                                       'ABCDEFGHIJKLMNOPQRSTUVWXYZ011');
            ch := pg_catalog.translate(ch, 'OIL', '011');
        ELSIF f = 'hex' THEN
            ch := pg_catalog.translate(ch, 'ABCDEF', 'abcdef');
        END IF;
        d := pg_catalog.strpos(alphabet, ch) - 1;
        IF d < 0 OR pg_catalog.octet_length(ch) <> 1 THEN
            -- Every character before it is ASCII: its character position is
            -- also its byte position.
            RAISE EXCEPTION 'invalid character "%" at position % of % snowflake id "%"',
                            pg_catalog.substr(txt, i, 1), i, f, snowflake_sql_quote(txt)
                USING ERRCODE = '22P02',
                      HINT = CASE f
                          WHEN 'base62' THEN 'base62 digits are 0-9, A-Z and a-z, case-sensitive.'
                          WHEN 'base32' THEN 'Crockford base32 digits are 0-9 and A-Z without I, L, '
                                             'O and U, case-insensitive; I and L read as 1, O as 0, '
                                             'and hyphens are ignored.'
                          ELSE 'hex digits are 0-9 and a-f, case-insensitive, without a 0x prefix.'
                      END;
        END IF;
        any_digit := true;
        IF NOT overflow THEN
            v := v * base + d;
            overflow := v > 9223372036854775807;
        END IF;
    END LOOP;
    IF NOT any_digit THEN
        RAISE EXCEPTION 'invalid % snowflake id "%"', f, snowflake_sql_quote(txt)
            USING ERRCODE = '22P02', DETAIL = 'The text contains no digits.';
    END IF;
    IF overflow THEN
        -- Text longer than the format's width that reads as a decimal id,
        -- or as hex, most likely is one: the hint says how to read it.
        width := CASE f WHEN 'base62' THEN 11 WHEN 'base32' THEN 13 ELSE 16 END;
        IF pg_catalog.octet_length(txt) > width THEN
            IF txt ~ '^[0-9]+$' AND txt::numeric <= 9223372036854775807 THEN
                hint := pg_catalog.format('"%s" looks like a decimal id, which needs no decoding: '
                                          '''%s''::bigint.', txt, txt);
            ELSIF f <> 'hex' AND txt ~ '^[0-9A-Fa-f]+$'
                  AND (pg_catalog.length(pg_catalog.ltrim(txt, '0')) < 16
                       OR (pg_catalog.length(pg_catalog.ltrim(txt, '0')) = 16
                           AND pg_catalog.ltrim(txt, '0') < '8')) THEN
                hint := pg_catalog.format('"%s" looks like hex: snowflake_decode(''%s'', ''hex'').',
                                          txt, txt);
            END IF;
        END IF;
        IF hint IS NULL THEN
            RAISE EXCEPTION '% snowflake id "%" is out of range', f, snowflake_sql_quote(txt)
                USING ERRCODE = '22003',
                      DETAIL = 'Snowflake ids are at most 9223372036854775807 (2^63-1).';
        END IF;
        RAISE EXCEPTION '% snowflake id "%" is out of range', f, snowflake_sql_quote(txt)
            USING ERRCODE = '22003',
                  DETAIL = 'Snowflake ids are at most 9223372036854775807 (2^63-1).',
                  HINT = hint;
    END IF;
    RETURN v::bigint;
END
$fn$;
COMMENT ON FUNCTION snowflake_decode(text, text) IS 'id from base62, base32 (Crockford) or hex text';

-- ===========================================================================
-- Status
-- ===========================================================================

-- The fields of the C extension's snowflake_status that this edition knows.
-- last_id is the highest id the node may have issued; durable_mark the
-- millisecond every id issued so far is at or before (the value the other
-- edition's snowflake_start_above takes, as snowflake_max_id(durable_mark)).
CREATE OR REPLACE FUNCTION snowflake_status(
    OUT epoch timestamptz,
    OUT timestamp_bits integer,
    OUT datacenter_bits integer,
    OUT worker_bits integer,
    OUT sequence_bits integer,
    OUT datacenter_id integer,
    OUT worker_id integer,
    OUT clock_backward_policy text,
    OUT max_clock_backward_ms integer,
    OUT last_id bigint,
    OUT borrowed_ahead_ms bigint,
    OUT durable_mark timestamptz,
    OUT lifetime_end timestamptz,
    OUT identity_source text)
RETURNS record
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path FROM CURRENT
AS $fn$
DECLARE
    s snowflake_sql_config := snowflake_sql_settings();
    shift integer := s.datacenter_bits + s.worker_bits + s.sequence_bits;
    hi bigint := coalesce(pg_catalog.pg_sequence_last_value('snowflake_sql_bound'), 0);
    c bigint := pg_catalog.pg_sequence_last_value('snowflake_sql_counter');
    g bigint;
    t bigint;
BEGIN
    epoch := snowflake_sql_ms_to_ts(s.epoch_ms);
    timestamp_bits := 63 - shift;
    datacenter_bits := s.datacenter_bits;
    worker_bits := s.worker_bits;
    sequence_bits := s.sequence_bits;
    datacenter_id := s.datacenter_id;
    worker_id := s.worker_id;
    clock_backward_policy := s.clock_backward_policy;
    max_clock_backward_ms := s.max_clock_backward_ms;
    lifetime_end := snowflake_sql_ms_to_ts(s.epoch_ms + (1::bigint << (63 - shift)) - 1);
    identity_source := CASE WHEN s.worker_id IS NULL THEN 'none' ELSE 'configured' END;
    IF hi > 0 THEN
        g := (hi - 1) >> shift;
        t := floor(EXTRACT(epoch FROM pg_catalog.clock_timestamp()) * 1000)::bigint
             - s.epoch_ms;
        last_id := least(c, hi - 1);
        borrowed_ahead_ms := greatest(g - t, 0);
        durable_mark := snowflake_sql_ms_to_ts(s.epoch_ms + g);
    ELSE
        borrowed_ahead_ms := 0;
    END IF;
END
$fn$;

CREATE OR REPLACE VIEW snowflake_status AS SELECT * FROM snowflake_status();
COMMENT ON VIEW snowflake_status IS 'the generator of this node (database): layout, identity, clock';
GRANT SELECT ON snowflake_status TO PUBLIC;
