-- A node's configuration is its own: logical replication, which applies
-- rows with session_replication_role = replica (where ordinary triggers,
-- the checks and the bake above included, do not fire), never writes it.
-- A subscriber's apply worker that receives a change of this table (a
-- publication FOR ALL TABLES) stops with this error, so the node keeps its
-- identity and says why; so does any load run with that role setting.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_config_not_replicated()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    IF pg_catalog.current_setting('session_replication_role') = 'replica' THEN
        RAISE EXCEPTION 'snowflake_sql_config is not written with session_replication_role = replica'
            USING ERRCODE = '55000',
                  DETAIL = 'Logical replication (or a load that skips triggers) tried to write this '
                           'database''s snowflake configuration; another node''s would give its '
                           'identity to this one.',
                  HINT = 'Leave snowflake_sql_config out of publications: publish a list of '
                         'tables, or a schema without it (docs/managed.md, "Logical '
                         'replication").';
    END IF;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END
$fn$;
REVOKE ALL ON FUNCTION @extschema@.snowflake_sql_config_not_replicated() FROM PUBLIC;

CREATE OR REPLACE TRIGGER snowflake_sql_config_not_replicated
    BEFORE INSERT OR UPDATE OR DELETE ON @extschema@.snowflake_sql_config
    FOR EACH ROW EXECUTE FUNCTION @extschema@.snowflake_sql_config_not_replicated();
CREATE OR REPLACE TRIGGER snowflake_sql_config_not_truncated_by_replication
    BEFORE TRUNCATE ON @extschema@.snowflake_sql_config
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.snowflake_sql_config_not_replicated();
ALTER TABLE @extschema@.snowflake_sql_config
    ENABLE ALWAYS TRIGGER snowflake_sql_config_not_replicated,
    ENABLE ALWAYS TRIGGER snowflake_sql_config_not_truncated_by_replication;
