-- pg_dump keeps the configuration (the identity belongs to the database's
-- data); the sequences are not dumped: a restored database starts with no
-- region, so it never reuses one.  Only possible inside CREATE EXTENSION.
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

