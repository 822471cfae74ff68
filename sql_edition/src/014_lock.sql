-- The lock under which the node moves to a new region (the slow path,
-- snowflake_start_above): this empty table, locked in EXCLUSIVE mode.  No
-- role but the owner has a right on it, and a role without one cannot hold a
-- lock on it that conflicts (LOCK TABLE needs UPDATE, DELETE or TRUNCATE; a
-- query that names it fails before it holds more than ACCESS SHARE, which
-- does not conflict): no other role can stall the making of ids.  The lock is
-- taken in a block that always ends rolled back (its last statement raises
-- SQLSTATE SF001, which the block's own handler catches), so it is released when the block ends, whether it ends
-- normally, with an error or by a cancel: it never outlives the call.
CREATE TABLE IF NOT EXISTS @extschema@.snowflake_sql_lock ();
REVOKE ALL ON TABLE @extschema@.snowflake_sql_lock FROM PUBLIC;
COMMENT ON TABLE @extschema@.snowflake_sql_lock IS
    'snowflake_sql: locked while the node moves to a new millisecond (never has rows)';

