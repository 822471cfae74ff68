-- pg_dump keeps the configuration (the identity belongs to the database's
-- data); the extension's sequences are not dumped: a restored database
-- starts with no region, at its own clock.  So a copy under the original's
-- identity reuses the original's ids whenever the original made ids after
-- the dump or ahead of that clock (borrowed): a copy that replaces the
-- original takes snowflake_start_above(the original's
-- snowflake_max_id(durable_mark)) before its first id (docs/managed.md, "One
-- identity per database").  Only possible inside CREATE EXTENSION.
DO $dump$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_depend d
               WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
                 AND d.objid = '@extschema@.snowflake_sql_config'::pg_catalog.regclass
                 AND d.deptype = 'e') THEN
        PERFORM pg_catalog.pg_extension_config_dump('@extschema@.snowflake_sql_config', '');
    END IF;
END
$dump$;

