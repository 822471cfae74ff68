-- Versions: a fresh CREATE EXTENSION installs the default version (1.1 or
-- later); 1.0, installed from its own script, updates to 1.1 with ALTER
-- EXTENSION and then matches a fresh 1.1 exactly.  Pinned to 1.0 and 1.1, so
-- later versions do not change this output.  Only 1.0 has an install script:
-- PostgreSQL builds every later version through the update scripts, so a
-- fresh install and an update cannot drift apart.
SELECT current_database() AS regress_db \gset
SELECT version FROM pg_available_extension_versions
WHERE name = 'snowflake' AND version IN ('1.0', '1.1') ORDER BY version;
SELECT * FROM pg_extension_update_paths('snowflake')
WHERE source = '1.0' AND target = '1.1';

-- A fresh install gets the default version, which is 1.1 or later.
CREATE DATABASE toolkit_fresh;
\c toolkit_fresh
CREATE EXTENSION snowflake;
SELECT extversion = (SELECT default_version FROM pg_available_extensions
                     WHERE name = 'snowflake') AS default_version_installed,
       string_to_array(extversion, '.')::int[] >= '{1,1}' AS at_least_1_1
FROM pg_extension WHERE extname = 'snowflake';
SELECT snowflake_encode(910499571847892992) AS base62;
DROP EXTENSION snowflake;
-- A fresh CREATE EXTENSION at 1.1: its functions with their properties, and
-- all its members, as fingerprints.
CREATE EXTENSION snowflake VERSION '1.1';
SELECT extversion FROM pg_extension WHERE extname = 'snowflake';
SELECT string_agg(format('%s %s %s %s %s', p.oid::regprocedure, p.provolatile, p.proisstrict,
                         p.proparallel, p.prosrc), E'\n' ORDER BY p.oid::regprocedure::text)
       AS fresh_functions
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake') \gset
SELECT string_agg(pg_describe_object(classid, objid, objsubid), E'\n'
                  ORDER BY pg_describe_object(classid, objid, objsubid)) AS fresh_members
FROM pg_depend
WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake') \gset

-- 1.0 from its own script: none of the 1.1 functions yet.
CREATE DATABASE toolkit_from_1_0;
\c toolkit_from_1_0
SET TimeZone = 'UTC';
CREATE EXTENSION snowflake VERSION '1.0';
SELECT extversion FROM pg_extension WHERE extname = 'snowflake';
SELECT p.oid::regprocedure AS function
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake')
ORDER BY p.oid::regprocedure::text;
-- (The error alone: PostgreSQL 19 words its detail differently.)
\set VERBOSITY terse
SELECT snowflake_timestamp(910499571847892992);
SELECT snowflake_encode(910499571847892992);
\set VERBOSITY default
-- What 1.0 already had keeps working.
SELECT * FROM snowflake_parse(910499571847892992);
CREATE TABLE kept (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), n int);
INSERT INTO kept (n) SELECT generate_series(1, 10);

-- Update: the new functions appear, and the result matches a fresh 1.1.
ALTER EXTENSION snowflake UPDATE TO '1.1';
SELECT extversion FROM pg_extension WHERE extname = 'snowflake';
SELECT p.oid::regprocedure AS function, p.provolatile, p.proisstrict, p.proparallel
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake')
ORDER BY p.oid::regprocedure::text;
SELECT string_agg(format('%s %s %s %s %s', p.oid::regprocedure, p.provolatile, p.proisstrict,
                         p.proparallel, p.prosrc), E'\n' ORDER BY p.oid::regprocedure::text)
       = :'fresh_functions' AS same_functions_as_fresh
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake');
SELECT string_agg(pg_describe_object(classid, objid, objsubid), E'\n'
                  ORDER BY pg_describe_object(classid, objid, objsubid)) = :'fresh_members'
       AS same_members_as_fresh
FROM pg_depend
WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake');
-- Already at 1.1: nothing to do.
ALTER EXTENSION snowflake UPDATE TO '1.1';

-- The new functions work, on rows made before the update too.
SELECT snowflake_timestamp(910499571847892992),
       snowflake_min_id('2017-09-20 13:43:08.849+00'),
       snowflake_max_id('2017-09-20 13:43:08.849+00'),
       snowflake_encode(910499571847892992, 'base32'),
       snowflake_decode('15G63YLn9Ae'),
       snowflake_format(910499571847892992, 'ORD-'),
       snowflake_parse_serial('ORD-2017092013430884917250000', 'ORD-');
SELECT snowflake_timestamp(910499571847892992, 1288834974657, 5, 5, 12);
SELECT count(*) AS rows,
       bool_and(snowflake_decode(snowflake_encode(id)) = id) AS codec_ok,
       bool_and(snowflake_parse_serial(snowflake_format(id)) = id) AS serial_ok,
       bool_and(id BETWEEN snowflake_min_id(snowflake_timestamp(id))
                       AND snowflake_max_id(snowflake_timestamp(id))) AS bounds_ok,
       bool_and(snowflake_timestamp(id) = (snowflake_parse(id)).ts) AS timestamp_ok
FROM kept;

-- A plain UPDATE goes on to the default version (quietly: there may be
-- nothing to do), and the rows still decode.
SET client_min_messages = warning;
ALTER EXTENSION snowflake UPDATE;
RESET client_min_messages;
SELECT extversion = (SELECT default_version FROM pg_available_extensions
                     WHERE name = 'snowflake') AS at_default_version
FROM pg_extension WHERE extname = 'snowflake';
SELECT count(*) AS rows, bool_and(snowflake_decode(snowflake_encode(id)) = id) AS codec_ok
FROM kept;

\c :regress_db
DROP DATABASE toolkit_fresh;
DROP DATABASE toolkit_from_1_0;
