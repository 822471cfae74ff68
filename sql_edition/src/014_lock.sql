-- The lock under which the node moves to a new region (the slow path,
-- snowflake_start_above, a change of identity): this empty table, locked in
-- SHARE UPDATE EXCLUSIVE mode, the one mode that conflicts with itself and
-- with none of those a role without a right on the table can hold.  Such a
-- role, with USAGE on the schema, still holds ACCESS SHARE, ROW SHARE or ROW
-- EXCLUSIVE to the end of its transaction by a statement that only names the
-- table -- PREPARE p AS SELECT ... FOR UPDATE (or INSERT, DELETE, MERGE),
-- CREATE VIEW ... AS SELECT ... FOR UPDATE, a function with a standard body
-- that deletes from it: parse analysis takes the lock before any privilege
-- check -- and EXCLUSIVE waited for each of those.  Every stronger lock
-- (LOCK TABLE, VACUUM, an index, a trigger, ALTER) needs a right on the table
-- and is refused before it is taken, or is given up with the statement's
-- error: no other role can stall the making of ids.  (Autovacuum takes this
-- mode too, on an empty table never written: an anti-wraparound pass now and
-- then, over in a moment.)  The lock is taken in a block that always ends
-- rolled back (its last statement raises SQLSTATE SF001, which the block's
-- own handler catches), so it is released when the block ends, whether it
-- ends normally, with an error or by a cancel: it never outlives the call.
-- Taking it (never already held) processes the invalidations of every
-- configuration committed before, so what is read under it is current.
CREATE TABLE IF NOT EXISTS @extschema@.snowflake_sql_lock ();
REVOKE ALL ON TABLE @extschema@.snowflake_sql_lock FROM PUBLIC;
COMMENT ON TABLE @extschema@.snowflake_sql_lock IS
    'snowflake_sql: locked while the node moves to a new millisecond (never has rows)';

