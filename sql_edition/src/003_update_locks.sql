-- An update takes every lock it needs on the edition's tables and view first
-- (its sequences it only comments on, which waits for no nextval), without
-- waiting (NOWAIT), trying again every 20 ms for up to
-- snowflake_sql.update_lock_wait (a custom setting, in milliseconds,
-- default 10000): a lock
-- request that waits puts every later session that reads the relation (to
-- compile snowflake_sql_next_slow, or read snowflake_status) in the queue
-- behind it, so an update waiting on one open reader would stop every
-- other session.  Trying without waiting, no session ever queues behind the
-- update; once it holds the locks, the rest of the script runs in well
-- under a second, and sessions wait only for that.  If the locks are not
-- free within the time, the update fails, changing nothing, and says which
-- sessions hold them.  A first install has nothing to lock.
DO $locks$
DECLARE
    rels pg_catalog.text;
    oids pg_catalog.oid[];
    wait_ms pg_catalog.int8 := coalesce(NULLIF(
        pg_catalog.current_setting('snowflake_sql.update_lock_wait', true), ''), '10000')::pg_catalog.int8;
    deadline pg_catalog.timestamptz;
    holders pg_catalog.text;
BEGIN
    SELECT pg_catalog.string_agg(c.oid::pg_catalog.regclass::pg_catalog.text, ', ' ORDER BY c.relname),
           pg_catalog.array_agg(c.oid)
    INTO rels, oids
    FROM pg_catalog.pg_class c
    WHERE c.relnamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
      AND c.relname OPERATOR(pg_catalog.~~) 'snowflake%'
      AND c.relkind OPERATOR(pg_catalog.=) ANY ('{r,v}'::"char"[]);
    IF rels IS NULL THEN
        RETURN;
    END IF;
    deadline := pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+)
                pg_catalog.make_interval(secs => wait_ms OPERATOR(pg_catalog./) 1000.0);
    LOOP
        BEGIN
            EXECUTE 'LOCK TABLE ' OPERATOR(pg_catalog.||) rels
                    OPERATOR(pg_catalog.||) ' IN ACCESS EXCLUSIVE MODE NOWAIT';
            RETURN;
        EXCEPTION WHEN lock_not_available THEN
            NULL;
        END;
        EXIT WHEN pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>=) deadline;
        PERFORM pg_catalog.pg_sleep(0.02);
    END LOOP;
    SELECT pg_catalog.string_agg(DISTINCT pg_catalog.format('pid %s (role %s, %s%s) holds %s on %s',
               l.pid, a.usename, coalesce(a.state, 'no state'),
               CASE WHEN a.xact_start IS NULL THEN ''
                    ELSE pg_catalog.format(', transaction open since %s', a.xact_start) END,
               l.mode, l.relation::pg_catalog.regclass), '; ')
    INTO holders
    FROM pg_catalog.pg_locks l
    LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid OPERATOR(pg_catalog.=) l.pid
    WHERE l.granted AND l.pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()
      AND l.relation OPERATOR(pg_catalog.=) ANY (oids);
    RAISE EXCEPTION 'snowflake_sql: the update could not lock the edition''s relations within % ms', wait_ms
        USING ERRCODE = '55P03',
              DETAIL = coalesce(holders, 'Sessions held them in turn.') OPERATOR(pg_catalog.||)
                       '. Nothing was changed, and no session waited for the update.',
              HINT = 'Run the update again when those transactions end (or end them: '
                     'pg_terminate_backend(pid)), or give it longer: '
                     'SET snowflake_sql.update_lock_wait = 60000 (milliseconds) before it.';
END
$locks$;
