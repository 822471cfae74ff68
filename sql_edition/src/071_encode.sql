CREATE OR REPLACE FUNCTION @extschema@.snowflake_encode(id bigint, format text DEFAULT 'base62')
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    f text := @extschema@.snowflake_sql_text_format(format);
    alphabet text;
    base integer;
    width integer;
    v bigint := id;
    out text := '';
BEGIN
    IF id < 0 THEN
        PERFORM @extschema@.snowflake_sql_invalid_id(id);
    END IF;
    IF f = 'hex' THEN
        RETURN pg_catalog.lpad(pg_catalog.to_hex(id), 16, '0');
    ELSIF f = 'base62' THEN
        alphabet := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
        base := 62;
        width := 11;
    ELSE
        alphabet := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
        base := 32;
        width := 13;
    END IF;
    FOR i IN 1 .. width LOOP
        out := pg_catalog.substr(alphabet, (v % base)::integer + 1, 1) || out;
        v := v / base;
    END LOOP;
    RETURN out;
END
$fn$;
COMMENT ON FUNCTION @extschema@.snowflake_encode(bigint, text) IS 'id as fixed-width base62, base32 (Crockford) or hex text';

