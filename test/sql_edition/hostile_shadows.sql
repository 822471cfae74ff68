-- A hostile role's shadows of everything the SQL edition's code calls, made
-- from the catalog (test/sql_edition/006_hostile_roles.pl runs this as that
-- role, with psql variables edition (the install schema, where the role may
-- create), hostile (a schema of its own, first in the victims' search_path)
-- and tools (another of its schemas, for the recording and the generator:
-- the generator itself must not call its shadows)).
--
-- For each operator name of pg_catalog that the edition's functions contain,
-- and each pair of argument types of a list the code uses, an operator in
-- both schemas wherever pg_catalog's operators accept the pair (an exact
-- match beats pg_catalog's operator that needs a coercion); for each
-- pg_catalog function the code names, its signatures and each one with an
-- argument of another type, and for a VARIADIC "any" function (format,
-- concat_ws) 1 to 12 text arguments; for each function of the edition, the
-- same with an argument of another type, in the install schema, and of a
-- polymorphic one (anyelement), each type in place of its polymorphic
-- arguments: an exact match, which beats the polymorphic function even in a
-- call written with its schema.  Each shadow records that it ran (a WARNING
-- and a sequence) and then does what pg_catalog's (or the edition's) would
-- (a shadow of a polymorphic function returns NULL).

CREATE SEQUENCE :"tools".shadow_runs;
CREATE TABLE :"tools".shadows (what text);
GRANT USAGE ON SCHEMA :"hostile", :"tools" TO PUBLIC;
GRANT USAGE, SELECT ON SEQUENCE :"tools".shadow_runs TO PUBLIC;
SET search_path = :"tools", pg_catalog;

-- shadow_ran(what) is what every shadow calls first.
CREATE FUNCTION :"tools".shadow_ran(what text) RETURNS void LANGUAGE plpgsql
SET search_path = :"tools", pg_catalog AS $f$
BEGIN
    RAISE WARNING 'hostile shadow ran: %', what;
    BEGIN
        PERFORM nextval('shadow_runs');
    EXCEPTION WHEN OTHERS THEN NULL;   -- a read-only transaction: the WARNING tells
    END;
END
$f$;

-- A function nsp.fname(args): a shadow in the install schema (and, of a
-- pg_catalog function, in the role's own), which calls nsp.fname with its
-- arguments as orig's types (pg_catalog's: resolved there, as the edition's
-- code would have had them).
CREATE FUNCTION :"tools".shadow_function(nsp text, fname text, args text[], own text, edition text,
                                           orig text[] DEFAULT NULL, rt text DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $f$
DECLARE
    callee text := pg_catalog.format('%I.%I', nsp, fname);
    calls text;
    nulls text;
    s text;
    what text;
BEGIN
    SELECT pg_catalog.string_agg(pg_catalog.format('$%s::%s', i, coalesce(orig[i], args[i])), ', ' ORDER BY i),
           pg_catalog.string_agg(pg_catalog.format('NULL::%s', args[i]), ', ' ORDER BY i)
    INTO calls, nulls
    FROM pg_catalog.generate_subscripts(args, 1) i;
    IF rt IS NULL THEN
        BEGIN
            EXECUTE pg_catalog.format('SELECT pg_catalog.pg_typeof(%s(%s))::text', callee, coalesce(nulls, ''))
                INTO rt;
        EXCEPTION WHEN OTHERS THEN
            RETURN;    -- pg_catalog has nothing these arguments could call
        END;
    END IF;
    FOREACH s IN ARRAY CASE WHEN nsp = 'pg_catalog' THEN ARRAY[edition, own] ELSE ARRAY[edition] END LOOP
        what := pg_catalog.format('function %I.%I(%s)', s, fname, pg_catalog.array_to_string(args, ', '));
        BEGIN
            EXECUTE pg_catalog.format(
                'CREATE FUNCTION %I.%I(%s) RETURNS %s LANGUAGE plpgsql AS $b$ BEGIN PERFORM %I.shadow_ran(%L); %s END $b$',
                s, fname, pg_catalog.array_to_string(args, ', '), rt,
                pg_catalog.current_setting('hostile.tools'), what,
                CASE WHEN rt = 'void' THEN pg_catalog.format('PERFORM %s(%s); RETURN;', callee, coalesce(calls, ''))
                     ELSE pg_catalog.format('RETURN %s(%s);', callee, coalesce(calls, '')) END);
            INSERT INTO shadows VALUES (what);
        EXCEPTION WHEN OTHERS THEN
            NULL;     -- it exists (the function itself, or a shadow made already)
        END;
    END LOOP;
END
$f$;

SELECT pg_catalog.set_config('hostile.edition', :'edition', false),
       pg_catalog.set_config('hostile.schema', :'hostile', false),
       pg_catalog.set_config('hostile.tools', :'tools', false);

DO $gen$
DECLARE
    edition text := pg_catalog.current_setting('hostile.edition');
    own text := pg_catalog.current_setting('hostile.schema');
    tools text := pg_catalog.current_setting('hostile.tools');
    types text[] := ARRAY['smallint', 'integer', 'bigint', 'numeric', 'double precision', 'real',
                          'text', 'boolean', 'timestamp with time zone', 'timestamp without time zone',
                          'interval', 'tstzrange', 'name', 'oid', 'regclass', 'character varying'];
    defs text;
    op record;
    f record;
    l text;
    r text;
    rt text;
    args text[];
    sig text;
    call text;
    n integer := 0;
    i integer;
    k integer;
    s text;
BEGIN
    -- The text of every function and view of the edition.
    SELECT pg_catalog.string_agg(pg_catalog.pg_get_functiondef(p.oid), E'\n') INTO defs
    FROM pg_catalog.pg_proc p WHERE p.pronamespace = edition::regnamespace AND p.prokind = 'f';
    defs := defs || (SELECT pg_catalog.string_agg(pg_catalog.pg_get_viewdef(c.oid), E'\n')
                     FROM pg_catalog.pg_class c
                     WHERE c.relnamespace = edition::regnamespace AND c.relkind = 'v');

    -- Operators.
    FOR op IN SELECT DISTINCT o.oprname FROM pg_catalog.pg_operator o
              WHERE o.oprnamespace = 'pg_catalog'::regnamespace
                AND pg_catalog.strpos(defs, o.oprname) > 0
                AND o.oprname !~ '[@#?]{2}|^~[<>]'     -- text pattern and geometric ones
    LOOP
        FOREACH l IN ARRAY types || ARRAY[NULL] LOOP
            FOREACH r IN ARRAY types LOOP
                BEGIN
                    EXECUTE pg_catalog.format('SELECT pg_catalog.pg_typeof(%s OPERATOR(pg_catalog.%s) NULL::%s)::text',
                                              CASE WHEN l IS NULL THEN '' ELSE 'NULL::' || l END, op.oprname, r)
                        INTO rt;
                EXCEPTION WHEN OTHERS THEN
                    CONTINUE;
                END;
                FOREACH s IN ARRAY ARRAY[edition, own] LOOP
                    n := n + 1;
                    BEGIN
                        EXECUTE pg_catalog.format(
                            'CREATE FUNCTION %I.shadow_%s(%s) RETURNS %s LANGUAGE plpgsql AS $b$ '
                            'BEGIN PERFORM %I.shadow_ran(%L); RETURN %s OPERATOR(pg_catalog.%s) $%s; END $b$',
                            s, n, CASE WHEN l IS NULL THEN r ELSE l || ', ' || r END, rt, tools,
                            pg_catalog.format('operator %s(%s, %s) in %s', op.oprname, l, r, s),
                            CASE WHEN l IS NULL THEN '' ELSE '$1' END, op.oprname,
                            CASE WHEN l IS NULL THEN 1 ELSE 2 END);
                        EXECUTE pg_catalog.format('CREATE OPERATOR %I.%s (%s RIGHTARG = %s, FUNCTION = %I.shadow_%s)',
                            s, op.oprname, CASE WHEN l IS NULL THEN '' ELSE 'LEFTARG = ' || l || ',' END,
                            r, s, n);
                        INSERT INTO shadows VALUES (pg_catalog.format('operator %s(%s, %s)', op.oprname,
                                                                      coalesce(l, 'none'), r));
                    EXCEPTION WHEN OTHERS THEN
                        RAISE NOTICE 'no shadow %(%, %) in %: %', op.oprname, l, r, s, SQLERRM;
                    END;
                END LOOP;
            END LOOP;
        END LOOP;
    END LOOP;

    -- The edition's polymorphic functions, each type in place of the
    -- polymorphic argument types.
    FOR f IN SELECT p.proname,
                    pg_catalog.string_to_array(pg_catalog.oidvectortypes(p.proargtypes), ', ') AS a,
                    p.prorettype::regtype::text AS rt
             FROM pg_catalog.pg_proc p
             WHERE p.pronamespace = edition::regnamespace AND p.proowner <> current_user::regrole
               AND p.prokind = 'f'
               AND p.proargtypes::regtype[]::text[] && ARRAY['anyelement', 'anycompatible', 'anynonarray']
    LOOP
        FOREACH r IN ARRAY types LOOP
            args := f.a;
            FOR i IN 1 .. array_length(args, 1) LOOP
                IF args[i] IN ('anyelement', 'anycompatible', 'anynonarray') THEN
                    args[i] := r;
                END IF;
            END LOOP;
            sig := pg_catalog.format('%I.%I(%s)', edition, f.proname, pg_catalog.array_to_string(args, ', '));
            BEGIN
                EXECUTE pg_catalog.format(
                    'CREATE FUNCTION %s RETURNS %s LANGUAGE plpgsql AS $b$ BEGIN PERFORM %I.shadow_ran(%L); RETURN%s; END $b$',
                    sig, CASE WHEN f.rt IN ('anyelement', 'anycompatible', 'anynonarray') THEN r ELSE f.rt END,
                    tools, 'function ' || sig, CASE WHEN f.rt = 'void' THEN '' ELSE ' NULL' END);
                INSERT INTO shadows VALUES ('function ' || sig);
            EXCEPTION WHEN OTHERS THEN
                RAISE NOTICE 'no shadow %: %', sig, SQLERRM;
            END;
        END LOOP;
    END LOOP;

    -- pg_catalog's functions, and the edition's, with other argument types.
    FOR f IN SELECT p.oid, p.proname, n2.nspname, p.provariadic,
                    pg_catalog.string_to_array(pg_catalog.oidvectortypes(p.proargtypes), ', ') AS a,
                    CASE WHEN n2.nspname = edition THEN p.prorettype::regtype::text END AS rt
             FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n2 ON n2.oid = p.pronamespace
             WHERE p.prokind = 'f' AND p.proretset = false
               AND (p.proallargtypes IS NULL OR p.provariadic <> 0)
               AND ((n2.nspname = 'pg_catalog'
                     AND defs ~ ('\m' || p.proname || '\s*\('))
                    OR (n2.nspname = edition AND p.proowner <> current_user::regrole))
               AND NOT p.proargtypes::regtype[]::text[] && ARRAY['anyelement', 'anyarray', 'anyrange',
                   'anycompatible', 'internal', 'cstring', 'anynonarray']
    LOOP
        IF f.provariadic = '"any"'::regtype THEN
            FOR k IN 1 .. 12 LOOP
                args := array_fill('text'::text, ARRAY[k]);
                PERFORM shadow_function(f.nspname, f.proname, args, own, edition);
            END LOOP;
            CONTINUE;
        END IF;
        CONTINUE WHEN '"any"' = ANY (f.a);
        IF f.nspname = 'pg_catalog' THEN
            PERFORM shadow_function(f.nspname, f.proname, f.a, own, edition);
        END IF;
        FOR i IN 1 .. coalesce(array_length(f.a, 1), 0) LOOP
            FOREACH r IN ARRAY types LOOP
                CONTINUE WHEN r = f.a[i];
                args := f.a;
                args[i] := r;
                PERFORM shadow_function(f.nspname, f.proname, args, own, edition,
                                        CASE WHEN f.rt IS NOT NULL THEN f.a END, f.rt);
            END LOOP;
        END LOOP;
    END LOOP;
END
$gen$;
