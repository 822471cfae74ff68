-- Refuses to install or update while another role's object sits under one of
-- the edition's names in the install schema: a function named snowflake...
-- of any argument types (an overload that matched a call of the edition
-- better would run in its place, as whoever called it), or a relation or a
-- type.  The edition's own objects are those of the owner of its state
-- (snowflake_sql_config), or of the installing role on a first install;
-- members of an extension (the edition installed with pg_tle, the C
-- extension beside it) are not another role's.  Nothing is changed: the
-- script is one transaction.
DO $foreign$
DECLARE
    owner_oid pg_catalog.oid := coalesce(
        (SELECT c.relowner FROM pg_catalog.pg_class c
         WHERE c.oid OPERATOR(pg_catalog.=) pg_catalog.to_regclass('@extschema@.snowflake_sql_config')),
        (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) current_user));
    o record;
BEGIN
    FOR o IN
        SELECT 'function' AS kind, p.oid::pg_catalog.regprocedure::pg_catalog.text AS what,
               p.proowner AS owner, 'pg_proc'::pg_catalog.regclass AS cat, p.oid AS oid
        FROM pg_catalog.pg_proc p
        WHERE p.pronamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
          AND p.proname OPERATOR(pg_catalog.~~) 'snowflake%'
        UNION ALL
        SELECT 'relation', c.oid::pg_catalog.regclass::pg_catalog.text, c.relowner,
               'pg_class'::pg_catalog.regclass, c.oid
        FROM pg_catalog.pg_class c
        WHERE c.relnamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
          AND c.relname OPERATOR(pg_catalog.~~) 'snowflake%'
        UNION ALL
        SELECT 'type', t.oid::pg_catalog.regtype::pg_catalog.text, t.typowner,
               'pg_type'::pg_catalog.regclass, t.oid
        FROM pg_catalog.pg_type t
        WHERE t.typnamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
          AND t.typname OPERATOR(pg_catalog.~~) 'snowflake%'
          AND t.typrelid OPERATOR(pg_catalog.=) 0
          AND t.typelem OPERATOR(pg_catalog.=) 0
    LOOP
        CONTINUE WHEN o.owner OPERATOR(pg_catalog.=) owner_oid;
        CONTINUE WHEN EXISTS (SELECT FROM pg_catalog.pg_depend d
                              WHERE d.classid OPERATOR(pg_catalog.=) o.cat
                                AND d.objid OPERATOR(pg_catalog.=) o.oid
                                AND d.deptype OPERATOR(pg_catalog.=) 'e');
        RAISE EXCEPTION 'snowflake_sql: % % belongs to role %, not to %',
                        o.kind, o.what, pg_catalog.pg_get_userbyid(o.owner),
                        pg_catalog.pg_get_userbyid(owner_oid)
            USING ERRCODE = '42501',
                  DETAIL = 'Another role''s object under the edition''s names in its schema could run in '
                           'place of the edition''s own, as whoever calls it. Nothing was installed or '
                           'changed.',
                  HINT = 'Drop it (as its owner or a superuser), and let only the edition''s owner '
                         'create in its schema (REVOKE CREATE ON SCHEMA ... FROM PUBLIC).';
    END LOOP;
END
$foreign$;
