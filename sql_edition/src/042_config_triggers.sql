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

