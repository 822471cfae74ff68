CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_config_apply()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    PERFORM @extschema@.snowflake_sql_bake();
    RETURN NULL;
END
$fn$;
REVOKE ALL ON FUNCTION @extschema@.snowflake_sql_config_check() FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.snowflake_sql_config_apply() FROM PUBLIC;

CREATE OR REPLACE TRIGGER snowflake_sql_config_check
    BEFORE INSERT OR UPDATE ON @extschema@.snowflake_sql_config
    FOR EACH ROW EXECUTE FUNCTION @extschema@.snowflake_sql_config_check();
CREATE OR REPLACE TRIGGER snowflake_sql_config_apply
    AFTER INSERT OR UPDATE OR DELETE ON @extschema@.snowflake_sql_config
    FOR EACH ROW EXECUTE FUNCTION @extschema@.snowflake_sql_config_apply();

