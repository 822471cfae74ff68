-- The extension in a schema of its own: CREATE EXTENSION snowflake SCHEMA ids
-- works, the extension stays there (relocatable = false), its functions work
-- whatever the caller's search_path and whatever is planted in public, and an
-- update from every earlier version ends with what a fresh install has.
SELECT current_database() AS regress_db \gset

-- A template with schema ids and a fingerprint of the extension: functions
-- with their properties and settings (search_path, SECURITY DEFINER), the
-- members, the registry table's columns and constraints.
CREATE DATABASE sf_schema_template;
\c sf_schema_template
CREATE SCHEMA ids;
CREATE SCHEMA regress_fp;
CREATE FUNCTION regress_fp.fingerprint() RETURNS text LANGUAGE sql AS $$
    SELECT concat_ws(E'\n--\n',
        (SELECT string_agg(format('%s %s %s %s %s %s %s', p.oid::regprocedure, p.provolatile,
                                  p.proisstrict, p.proparallel, p.prosecdef, p.proconfig,
                                  md5(p.prosrc)), E'\n' ORDER BY p.oid::regprocedure::text)
         FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
         WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
           AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake')),
        (SELECT string_agg(pg_describe_object(classid, objid, objsubid), E'\n'
                           ORDER BY pg_describe_object(classid, objid, objsubid))
         FROM pg_depend
         WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
           AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake')),
        (SELECT string_agg(format('%s %s %s %s', a.attname, format_type(a.atttypid, a.atttypmod),
                                  a.attnotnull, pg_get_expr(ad.adbin, ad.adrelid)), E'\n'
                           ORDER BY a.attnum)
         FROM pg_attribute a
         LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
         WHERE a.attrelid = to_regclass('ids.snowflake_registry') AND a.attnum > 0
           AND NOT a.attisdropped),
        (SELECT string_agg(pg_get_constraintdef(c.oid), E'\n' ORDER BY pg_get_constraintdef(c.oid))
         FROM pg_constraint c WHERE c.conrelid = to_regclass('ids.snowflake_registry')));
$$;
\c :regress_db

-- A fresh install into schema ids.
CREATE DATABASE sf_schema_fresh TEMPLATE sf_schema_template;
\c sf_schema_fresh
CREATE EXTENSION snowflake SCHEMA ids;
SELECT e.extversion = (SELECT default_version FROM pg_available_extensions
                       WHERE name = 'snowflake') AS default_version,
       n.nspname AS schema, e.extrelocatable
FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'snowflake';
-- Every member lives in ids; nothing was created in public.
SELECT count(*) AS members_outside_ids
FROM pg_depend d
LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
LEFT JOIN pg_class c ON d.classid = 'pg_class'::regclass AND c.oid = d.objid
LEFT JOIN pg_type t ON d.classid = 'pg_type'::regclass AND t.oid = d.objid
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'snowflake')
  AND coalesce(p.pronamespace, c.relnamespace, t.typnamespace) <> 'ids'::regnamespace;
SELECT (SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace)
     + (SELECT count(*) FROM pg_proc WHERE pronamespace = 'public'::regnamespace) AS objects_in_public;
SELECT regress_fp.fingerprint() AS fresh \gset

-- It stays where it was created.
ALTER EXTENSION snowflake SET SCHEMA public;

-- Called with only public on the search_path.
SET search_path = public;
SELECT * FROM ids.snowflake_registry_claim('node-a');
SELECT * FROM ids.snowflake_registry_renew('node-a', 5, 5, 0, 0);
SELECT ids.snowflake_encode(910499571847892992), ids.snowflake_parse_serial('ORD-2017092013430884917250000', 'ORD-');

-- Hostile objects in public, and a search_path that puts them before
-- pg_catalog: a table with the registry's name, functions and an operator
-- the registry functions use.  The functions must not see any of them.
CREATE TABLE public.snowflake_registry (datacenter_id integer, worker_id integer,
    node_key text, claimed_at timestamptz, datacenter_bits integer, worker_bits integer,
    last_seen timestamptz);
CREATE FUNCTION public.now() RETURNS timestamptz LANGUAGE sql
    AS $$ SELECT '2000-01-01 00:00:00+00'::timestamptz $$;
CREATE FUNCTION public.generate_series(integer, integer) RETURNS SETOF integer LANGUAGE sql
    AS $$ SELECT 31 $$;
CREATE FUNCTION public.text_eq_planted(text, text) RETURNS boolean LANGUAGE sql
    AS $$ SELECT true $$;
CREATE OPERATOR public.= (LEFTARG = text, RIGHTARG = text, FUNCTION = public.text_eq_planted);
SET search_path = public, pg_catalog, ids;
-- The traps are armed: plain SQL with this search_path falls into them.
SELECT 'a'::text = 'b'::text AS planted_operator_used, now() < '2001-01-01' AS planted_now_used,
       (SELECT max(g) FROM generate_series(1, 3) g) AS planted_generate_series;
SELECT * FROM snowflake_registry_claim('node-b');
SELECT * FROM snowflake_registry_renew('node-c', 5, 5, 31, 31);
SELECT * FROM snowflake_registry_claim('node-a');
\set VERBOSITY terse
SELECT snowflake_registry_release('node-b');
\set VERBOSITY default
RESET search_path;
SELECT count(*) AS planted_rows FROM public.snowflake_registry;
SELECT datacenter_id, worker_id, node_key, last_seen > '2001-01-01' AS real_now
FROM ids.snowflake_registry ORDER BY 1, 2;

-- Time predicates with the extension in schema ids and the caller's
-- search_path without it: the operator is written OPERATOR(ids.<@), the
-- natural form ids.snowflake_timestamp(id); both are answered from id
-- bounds, compared with pg_catalog's operators whatever is planted before
-- them.
SET max_parallel_workers_per_gather = 0;
SET TimeZone = 'UTC';
CREATE TABLE public.sch_orders (id bigint PRIMARY KEY);
INSERT INTO public.sch_orders
SELECT ids.snowflake_min_id(timestamptz '2026-01-01+00' + g * interval '1 min') FROM generate_series(0, 9999) g;
VACUUM ANALYZE public.sch_orders;
CREATE FUNCTION public.int8_ge_planted(bigint, bigint) RETURNS boolean LANGUAGE sql AS $$ SELECT true $$;
CREATE OPERATOR public.>= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = public.int8_ge_planted);
SET search_path = public, pg_catalog;
SELECT count(*) AS planted_ge_true FROM sch_orders WHERE id >= 9223372036854775807;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM sch_orders WHERE id OPERATOR(ids.<@) tstzrange('2026-01-02+00', '2026-01-03+00');
SELECT count(*) FROM sch_orders WHERE id OPERATOR(ids.<@) tstzrange('2026-01-02+00', '2026-01-03+00');
EXPLAIN (COSTS OFF)
SELECT count(*) FROM sch_orders WHERE id OPERATOR(ids.<@) tstzrange(pg_catalog.now() - interval '1 day', pg_catalog.now());
EXPLAIN (COSTS OFF)
SELECT count(*) FROM sch_orders
WHERE ids.snowflake_timestamp(id) >= '2026-01-02+00' AND ids.snowflake_timestamp(id) < '2026-01-03+00';
SELECT count(*) FROM sch_orders
WHERE ids.snowflake_timestamp(id) >= '2026-01-02+00' AND ids.snowflake_timestamp(id) < '2026-01-03+00';
EXPLAIN (COSTS OFF)
SELECT count(*) FROM sch_orders WHERE ids.snowflake_timestamp(id) >= pg_catalog.now() - interval '1 day';
-- A snowflake_timestamp of the caller's own is not the extension's: left
-- alone.
CREATE FUNCTION public.snowflake_timestamp(bigint) RETURNS timestamptz LANGUAGE plpgsql STABLE
    AS $$ BEGIN RETURN '2000-01-01+00'; END $$;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM sch_orders WHERE snowflake_timestamp(id) >= '2026-01-02+00';
SELECT count(*) FROM sch_orders WHERE snowflake_timestamp(id) >= '2026-01-02+00';
RESET search_path;
RESET TimeZone;
\c :regress_db

-- Updates into the default version from every earlier one, in schema ids:
-- they run, end with what the fresh install has, and the registry works.
CREATE DATABASE sf_schema_from_1_0 TEMPLATE sf_schema_template;
\c sf_schema_from_1_0
CREATE EXTENSION snowflake SCHEMA ids VERSION '1.0';
ALTER EXTENSION snowflake UPDATE;
SELECT regress_fp.fingerprint() = :'fresh' AS same_as_fresh;
SELECT * FROM ids.snowflake_registry_claim('node-a');
\c :regress_db

CREATE DATABASE sf_schema_from_1_1 TEMPLATE sf_schema_template;
\c sf_schema_from_1_1
CREATE EXTENSION snowflake SCHEMA ids VERSION '1.1';
ALTER EXTENSION snowflake UPDATE;
SELECT regress_fp.fingerprint() = :'fresh' AS same_as_fresh;
SELECT * FROM ids.snowflake_registry_claim('node-a');
\c :regress_db

-- From 1.2, with a claim made under 1.2, and the functions in the state
-- ALTER EXTENSION ... SET SCHEMA left them in while 1.2 was relocatable:
-- still looking for the registry in the schema the extension left.
CREATE DATABASE sf_schema_from_1_2 TEMPLATE sf_schema_template;
\c sf_schema_from_1_2
CREATE EXTENSION snowflake SCHEMA ids VERSION '1.2';
SELECT * FROM ids.snowflake_registry_claim('node-old');
ALTER FUNCTION ids.snowflake_registry_claim(text, integer, integer) SET search_path = public, pg_temp;
ALTER FUNCTION ids.snowflake_registry_release(text) SET search_path = public, pg_temp;
\set VERBOSITY terse
SELECT * FROM ids.snowflake_registry_claim('node-a');
\set VERBOSITY default
ALTER EXTENSION snowflake UPDATE;
SELECT regress_fp.fingerprint() = :'fresh' AS same_as_fresh;
-- Repaired; the 1.2 claim is kept (widths unknown until it is renewed).
SELECT * FROM ids.snowflake_registry_claim('node-a');
SELECT node_key, datacenter_id, worker_id, datacenter_bits, worker_bits, last_seen = claimed_at AS last_seen_is_claimed_at
FROM ids.snowflake_registry ORDER BY 2, 3;
SELECT * FROM ids.snowflake_registry_renew('node-old', 5, 5, 0, 0);
SELECT node_key, datacenter_bits, worker_bits FROM ids.snowflake_registry ORDER BY 1;
\c :regress_db

DROP DATABASE sf_schema_fresh;
DROP DATABASE sf_schema_from_1_0;
DROP DATABASE sf_schema_from_1_1;
DROP DATABASE sf_schema_from_1_2;
DROP DATABASE sf_schema_template;
