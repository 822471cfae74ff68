-- Version 1.3 (snowflake_convert_column): ALTER EXTENSION ... UPDATE from
-- every earlier version reaches 1.3 and gets the function, and the result
-- is the same set of objects, with the same definitions, as a fresh
-- CREATE EXTENSION ... VERSION '1.3'.  Pinned to 1.3, so later versions do
-- not change this output.  Also: the function sets the default to the
-- extension's own schema after an update in a non-public schema.
SELECT current_database() AS regress_db \gset
SELECT version FROM pg_available_extension_versions
WHERE name = 'snowflake' AND version IN ('1.0', '1.1', '1.2', '1.3') ORDER BY version;
SELECT source, path FROM pg_extension_update_paths('snowflake')
WHERE target = '1.3' AND source IN ('1.0', '1.1', '1.2') ORDER BY source;

-- The extension's objects, with everything that defines them: functions
-- (signature, result, language, volatility, strictness, parallel safety,
-- security, settings, body, comment, privileges), relations and their
-- columns, views' queries, privileges and comments, and the extension row.
-- A query kept in a psql variable, to run in each database.
SELECT $fp$(
    WITH ext AS (SELECT * FROM pg_extension WHERE extname = 'snowflake'),
    members AS (
        SELECT d.classid, d.objid, d.objsubid FROM pg_depend d, ext
        WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e')
    SELECT string_agg(line, E'\n' ORDER BY line) FROM (
        SELECT 'member ' || pg_describe_object(classid, objid, objsubid) AS line FROM members
        UNION ALL
        SELECT format('function %s returns %s%s lang %s vol %s strict %s par %s secdef %s config %s comment %s acl %s body %s',
                      p.oid::regprocedure, CASE WHEN p.proretset THEN 'setof ' ELSE '' END,
                      p.prorettype::regtype, l.lanname, p.provolatile, p.proisstrict, p.proparallel,
                      p.prosecdef, p.proconfig, obj_description(p.oid, 'pg_proc'), p.proacl,
                      md5(p.prosrc || coalesce(pg_get_function_arguments(p.oid), '')))
        FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
        JOIN pg_language l ON l.oid = p.prolang
        UNION ALL
        SELECT format('relation %s kind %s acl %s comment %s view %s', c.oid::regclass, c.relkind, c.relacl,
                      obj_description(c.oid, 'pg_class'),
                      CASE WHEN c.relkind = 'v' THEN pg_get_viewdef(c.oid) END)
        FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
        UNION ALL
        SELECT format('column %s.%s %s notnull %s default %s', c.oid::regclass, a.attname,
                      format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(ad.adbin, ad.adrelid))
        FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
        UNION ALL
        SELECT format('extension %s relocatable %s schema %s config %s', extversion, extrelocatable,
                      extnamespace::regnamespace, extconfig::regclass[])
        FROM ext) s
)$fp$ AS fingerprint \gset

-- A fresh install at 1.3.
CREATE DATABASE convert_fresh;
\c convert_fresh
CREATE EXTENSION snowflake VERSION '1.3';
SELECT extversion, extrelocatable FROM pg_extension WHERE extname = 'snowflake';
SELECT p.oid::regprocedure AS function, pg_get_function_result(p.oid) AS result,
       pg_get_function_arguments(p.oid) AS arguments, p.provolatile, p.proisstrict, p.prosecdef, p.proconfig
FROM pg_proc p WHERE p.proname = 'snowflake_convert_column';
SELECT :fingerprint AS fresh \gset
SELECT array_length(string_to_array(:'fresh', E'\n'), 1) > 30 AS fingerprint_has_the_objects,
       :'fresh' LIKE '%function snowflake_convert_column(regclass,name,boolean,boolean) returns setof text%'
           AS fingerprint_has_the_converter;

-- From 1.0, 1.1 and 1.2: no converter before, the same objects after.
CREATE DATABASE convert_from_1_0;
CREATE DATABASE convert_from_1_1;
CREATE DATABASE convert_from_1_2;
\c convert_from_1_0
CREATE EXTENSION snowflake VERSION '1.0';
SELECT to_regproc('snowflake_convert_column') AS before_update;
CREATE TABLE t (id serial PRIMARY KEY);
INSERT INTO t DEFAULT VALUES;
ALTER EXTENSION snowflake UPDATE TO '1.3';
SELECT extversion FROM pg_extension WHERE extname = 'snowflake';
SELECT :fingerprint = :'fresh' AS same_as_fresh_1_3;
SELECT * FROM snowflake_convert_column('t', 'id');
\c convert_from_1_1
CREATE EXTENSION snowflake VERSION '1.1';
SELECT to_regproc('snowflake_convert_column') AS before_update;
ALTER EXTENSION snowflake UPDATE TO '1.3';
SELECT extversion FROM pg_extension WHERE extname = 'snowflake';
SELECT :fingerprint = :'fresh' AS same_as_fresh_1_3;
-- The comparison does see a difference: one setting of one function.
ALTER FUNCTION snowflake_convert_column(regclass, name, boolean, boolean) SET work_mem = '1MB';
SELECT :fingerprint = :'fresh' AS same_after_a_change;
ALTER FUNCTION snowflake_convert_column(regclass, name, boolean, boolean) RESET work_mem;
SELECT :fingerprint = :'fresh' AS same_again;
\c convert_from_1_2
CREATE EXTENSION snowflake VERSION '1.2';
SELECT to_regproc('snowflake_convert_column') AS before_update;
-- A plain UPDATE goes to the default version, 1.3 or later.
ALTER EXTENSION snowflake UPDATE;
SELECT string_to_array(extversion, '.')::int[] >= '{1,3}' AS at_least_1_3
FROM pg_extension WHERE extname = 'snowflake';
SELECT to_regproc('snowflake_convert_column') IS NOT NULL AS after_update;
-- Already at 1.3: nothing to do.
\c convert_from_1_1
ALTER EXTENSION snowflake UPDATE TO '1.3';

-- Installed in a schema of its own (one that needs quoting), updated from
-- 1.2: the converter names that schema in the default it sets, whatever
-- the caller's search_path.
\c convert_fresh
DROP EXTENSION snowflake;
CREATE SCHEMA "Snow Flake";
CREATE EXTENSION snowflake VERSION '1.2' SCHEMA "Snow Flake";
ALTER EXTENSION snowflake UPDATE TO '1.3';
CREATE TABLE t (id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY);
INSERT INTO t DEFAULT VALUES;
SET search_path = '';
SELECT * FROM "Snow Flake".snowflake_convert_column('public.t', 'id', drop_sequence => true);
INSERT INTO public.t DEFAULT VALUES;
SELECT count(*) AS rows, max(id) > 4294967296 AS snowflake_id FROM public.t;
RESET search_path;
-- relocatable = false: the functions refer to their schema by name.
ALTER EXTENSION snowflake SET SCHEMA public;

\c :regress_db
DROP DATABASE convert_fresh;
DROP DATABASE convert_from_1_0;
DROP DATABASE convert_from_1_1;
DROP DATABASE convert_from_1_2;
