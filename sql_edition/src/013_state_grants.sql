REVOKE ALL ON TABLE snowflake_sql_config FROM PUBLIC;
GRANT SELECT ON TABLE snowflake_sql_config TO PUBLIC;
-- The fast path runs as its caller: nextval and currval of C (USAGE: no
-- setval), and reading G (SELECT: no nextval or setval).
REVOKE ALL ON SEQUENCE snowflake_sql_counter FROM PUBLIC;
GRANT USAGE ON SEQUENCE snowflake_sql_counter TO PUBLIC;
REVOKE ALL ON SEQUENCE snowflake_sql_bound FROM PUBLIC;
GRANT SELECT ON SEQUENCE snowflake_sql_bound TO PUBLIC;

