-- ===========================================================================
-- The identity history
-- ===========================================================================

-- Called by the configuration's BEFORE trigger with the row before (NULL for
-- an INSERT) and after; returns the row after, with the identity history the
-- C extension's snowflake_status shows (docs/reference.md):
--   identity_since   every id under the current identity carries this time
--                    or a later one; NULL where the node cannot know;
--   retired_identity the identity before the last change ('dc/worker');
--   retired_until    the latest time any id under it carries, ids borrowed
--                    ahead included: the handover rule's time;
--   retired_since, identities_complete: to know identity_since again when
--                    the node moves back, and whether a new identity can
--                    have been used before (the node remembers two).
-- On an identity change it takes the lock of new regions (014_lock.sql) and
-- keeps it to the end of the transaction: from the bound it reads to the
-- commit, no region is published under the old identity, and after the commit
-- every new region is under the new one and above that bound's millisecond.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_identity_history(
    old_row @extschema@.snowflake_sql_config, new_row @extschema@.snowflake_sql_config)
RETURNS @extschema@.snowflake_sql_config
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    cur text := new_row.datacenter_id || '/' || new_row.worker_id;
    prev text;
    shift integer := new_row.datacenter_bits + new_row.worker_bits + new_row.sequence_bits;
    hi bigint;
    tag integer;          -- the tag the mark is read with
    mark bigint;
    g bigint;             -- the last millisecond any id issued so far carries
    t bigint;
    since timestamptz;
BEGIN
    IF old_row IS NULL THEN
        IF new_row.identity_since IS NOT NULL OR new_row.retired_identity IS NOT NULL THEN
            RETURN new_row;   -- a restore: the history comes with the row
        END IF;
    ELSE
        prev := old_row.datacenter_id || '/' || old_row.worker_id;
        new_row.identity_since := old_row.identity_since;
        new_row.retired_identity := old_row.retired_identity;
        new_row.retired_since := old_row.retired_since;
        new_row.retired_until := old_row.retired_until;
        new_row.identities_complete := old_row.identities_complete;
        IF prev = cur THEN
            RETURN new_row;
        END IF;
    END IF;
    LOCK TABLE ONLY @extschema@.snowflake_sql_lock IN SHARE UPDATE EXCLUSIVE MODE;
    hi := coalesce(pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_bound'), 0);
    tag := new_row.mark_tag;
    mark := @extschema@.snowflake_sql_mark_ms(tag);
    IF prev IS NOT NULL THEN
        -- A new identity draws a new tag (below, the node's own mark is
        -- written again with it): a copy of this database (a restore, a
        -- template, a standby made a node of its own) had its tag, and the
        -- mark of the database it was copied from, replicated into it, would
        -- have read as its own.  Not the tag now in the mark either.
        LOOP
            new_row.mark_tag := 1 + floor(random() * 65535)::integer;
            EXIT WHEN new_row.mark_tag <> tag
                  AND new_row.mark_tag <> coalesce(pg_catalog.pg_sequence_last_value(
                                                       '@extschema@.snowflake_sql_mark'), 0) & 65535;
        END LOOP;
    END IF;
    IF mark IS NULL AND old_row IS NULL AND hi = 0
       AND coalesce(pg_catalog.pg_sequence_last_value('@extschema@.snowflake_sql_layout'), 0) = 0 THEN
        -- The first configuration of a database that published no region
        -- yet (none under any layout): the mark another tag wrote (a
        -- configuration rolled back, or another database) covers no id of
        -- it.  Its own starts here.
        mark := 0;
    END IF;
    IF hi > 0 THEN
        g := (hi - 1) >> shift;
        IF mark IS NOT NULL AND new_row.mark_tag <> tag THEN
            PERFORM @extschema@.snowflake_sql_set_mark(mark, new_row.mark_tag);
        END IF;
    ELSIF mark IS NULL THEN
        -- Another database's mark and no region: where the ids stopped is
        -- not known (the slow path refuses ids until snowflake_start_above).
        new_row.identities_complete := false;
        new_row.identity_since := NULL;
        IF prev IS NOT NULL THEN   -- an identity change (old_row IS NOT NULL is false
                                   -- for a row with a NULL field)
            new_row.retired_identity := prev;
            new_row.retired_since := old_row.identity_since;
            new_row.retired_until := 'infinity';
        END IF;
        RETURN new_row;
    ELSE
        -- No region: every id issued is below the mark, and the next region
        -- starts at it; moved up to the clock, a new identity starts there.
        t := floor(EXTRACT(epoch FROM pg_catalog.clock_timestamp()) * 1000)::bigint - new_row.epoch_ms;
        IF t > mark OR new_row.mark_tag <> tag THEN
            PERFORM @extschema@.snowflake_sql_set_mark(greatest(t, mark), new_row.mark_tag);
        END IF;
        g := mark - 1;
        mark := greatest(mark, t);
    END IF;
    -- The first region under the new identity is above g (with no region:
    -- at the mark or above).
    since := @extschema@.snowflake_sql_ms_to_ts_or_infinity(
        new_row.epoch_ms + CASE WHEN hi > 0 THEN g + 1 ELSE mark END);
    IF old_row IS NULL THEN
        -- The first identity of a node that never made ids is known.
        new_row.identities_complete := hi = 0 AND g < 0;
        new_row.identity_since := CASE WHEN new_row.identities_complete THEN since END;
        RETURN new_row;
    END IF;
    IF cur = old_row.retired_identity THEN
        -- Back to the identity it left: its old ids are still there.
        new_row.identity_since := old_row.retired_since;
    ELSIF old_row.identities_complete THEN
        -- Never used: the node has used only the two it remembers.
        new_row.identity_since := since;
        new_row.identities_complete := old_row.retired_identity IS NULL;
    ELSE
        new_row.identity_since := NULL;
    END IF;
    new_row.retired_identity := prev;
    new_row.retired_since := old_row.identity_since;
    new_row.retired_until := CASE WHEN g >= 0
        THEN @extschema@.snowflake_sql_ms_to_ts_or_infinity(old_row.epoch_ms + g) END;
    RETURN new_row;
END
$fn$;
REVOKE ALL ON FUNCTION @extschema@.snowflake_sql_identity_history(@extschema@.snowflake_sql_config,
                                                                  @extschema@.snowflake_sql_config)
    FROM PUBLIC;
