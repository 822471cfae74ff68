REVOKE ALL ON TABLE @extschema@.snowflake_sql_config FROM PUBLIC;
GRANT SELECT ON TABLE @extschema@.snowflake_sql_config TO PUBLIC;
-- The fast path runs as its caller: nextval and currval of C (USAGE: no
-- setval), and reading G (SELECT: no nextval or setval).  Only the roles the
-- owner grants it to may count (docs/managed.md, "Application roles"); with
-- EXECUTE on the slow path (snowflake_sql_next_slow), that is all they need.
REVOKE ALL ON SEQUENCE @extschema@.snowflake_sql_counter FROM PUBLIC;
REVOKE ALL ON SEQUENCE @extschema@.snowflake_sql_bound FROM PUBLIC;
GRANT SELECT ON SEQUENCE @extschema@.snowflake_sql_bound TO PUBLIC;
REVOKE ALL ON SEQUENCE @extschema@.snowflake_sql_mark FROM PUBLIC;
REVOKE ALL ON SEQUENCE @extschema@.snowflake_sql_layout FROM PUBLIC;

