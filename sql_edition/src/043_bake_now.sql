-- The functions the configuration is baked into, from the configuration in
-- the table (none on a first install; the node's own on an update).
DO $bake$ BEGIN PERFORM @extschema@.snowflake_sql_bake(); END $bake$;

