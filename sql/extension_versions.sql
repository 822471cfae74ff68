-- Every extension version, read from the installed scripts (nothing here
-- names a version, so a new one is picked up as it lands): the control
-- file's default_version is the newest, every version installs on its own
-- and updates to the default, and the result of each update matches a
-- fresh CREATE EXTENSION object for object (functions with their
-- properties, views, tables, comments, privileges).
SELECT current_database() AS regress_db \gset
CREATE DATABASE extension_versions;
\c extension_versions
SET client_min_messages = warning;

CREATE FUNCTION pg_temp.version_key(v text) RETURNS int[] LANGUAGE sql IMMUTABLE
    AS $$ SELECT string_to_array(v, '.')::int[] $$;

-- Everything about the extension's members that a user could see.
CREATE FUNCTION pg_temp.fingerprint() RETURNS text LANGUAGE sql AS $$
SELECT string_agg(item, E'\n' ORDER BY item) FROM (
    SELECT pg_describe_object(d.classid, d.objid, d.objsubid)
           || coalesce(' comment=' || obj_description(d.objid, d.classid::regclass::text), '')
           AS item
    FROM pg_depend d
    WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
      AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake')
    UNION ALL
    SELECT format('function %s(%s) returns %s %s strict=%s parallel=%s secdef=%s acl=%s cfg=%s src=%s bin=%s',
                  p.proname, pg_get_function_arguments(p.oid), pg_get_function_result(p.oid),
                  p.provolatile, p.proisstrict, p.proparallel, p.prosecdef, p.proacl,
                  p.proconfig, md5(p.prosrc), p.probin)
    FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
    WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
      AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake')
    UNION ALL
    SELECT format('relation %s kind=%s acl=%s view=%s columns=%s constraints=%s indexes=%s',
                  c.relname, c.relkind, c.relacl,
                  md5(CASE WHEN c.relkind = 'v' THEN pg_get_viewdef(c.oid) END),
                  (SELECT string_agg(format('%s %s notnull=%s default=%s', a.attname,
                                            format_type(a.atttypid, a.atttypmod), a.attnotnull,
                                            pg_get_expr(ad.adbin, ad.adrelid)), ', ' ORDER BY a.attnum)
                   FROM pg_attribute a
                   LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
                   WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
                  (SELECT string_agg(pg_get_constraintdef(co.oid), ', ' ORDER BY pg_get_constraintdef(co.oid))
                   FROM pg_constraint co WHERE co.conrelid = c.oid),
                  (SELECT string_agg(pg_get_indexdef(i.indexrelid), ', ' ORDER BY pg_get_indexdef(i.indexrelid))
                   FROM pg_index i WHERE i.indrelid = c.oid))
    FROM pg_class c JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid
    WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
      AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake')
) items
$$;

-- The default version is the newest one there is a script for.
SELECT count(*) >= 2 AS several_versions,
       max(pg_temp.version_key(v.version))
         = pg_temp.version_key((SELECT default_version FROM pg_available_extensions
                                WHERE name = 'snowflake')) AS default_is_newest
FROM pg_available_extension_versions v WHERE v.name = 'snowflake';
-- Every version has an update path to the default.
SELECT bool_and(p.path IS NOT NULL) AS every_version_reaches_the_default
FROM pg_available_extension_versions v
LEFT JOIN pg_extension_update_paths('snowflake') p
       ON p.source = v.version
      AND p.target = (SELECT default_version FROM pg_available_extensions WHERE name = 'snowflake')
WHERE v.name = 'snowflake'
  AND v.version <> (SELECT default_version FROM pg_available_extensions WHERE name = 'snowflake');

-- A fresh install, then each older version installed and updated.
CREATE TEMP TABLE result (version text, installs boolean, updated_to text, same_as_fresh boolean);
DO $$
DECLARE
    fresh text;
    v text;
    dflt text := (SELECT default_version FROM pg_available_extensions WHERE name = 'snowflake');
BEGIN
    CREATE EXTENSION snowflake;
    fresh := pg_temp.fingerprint();
    DROP EXTENSION snowflake;
    FOR v IN SELECT version FROM pg_available_extension_versions
             WHERE name = 'snowflake' AND version <> dflt ORDER BY pg_temp.version_key(version)
    LOOP
        EXECUTE format('CREATE EXTENSION snowflake VERSION %L', v);
        ALTER EXTENSION snowflake UPDATE;
        INSERT INTO result
        SELECT v, true, extversion, pg_temp.fingerprint() = fresh
        FROM pg_extension WHERE extname = 'snowflake';
        DROP EXTENSION snowflake;
    END LOOP;
END $$;
SELECT count(*) > 0 AS older_versions_tried,
       bool_and(installs) AS each_installs,
       bool_and(updated_to = (SELECT default_version FROM pg_available_extensions
                              WHERE name = 'snowflake')) AS each_updates_to_the_default,
       bool_and(same_as_fresh) AS each_update_matches_a_fresh_install,
       string_agg(version, ', ') FILTER (WHERE NOT same_as_fresh) AS differing
FROM result;

\c :regress_db
DROP DATABASE extension_versions;
