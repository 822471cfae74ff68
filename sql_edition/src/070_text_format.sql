-- ===========================================================================
-- Text forms: base62, Crockford base32, hex; fixed width, so that they sort
-- like the ids (src/core/text_codec.cpp has the same rules)
-- ===========================================================================

CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_text_format(format text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    f text := pg_catalog.translate(format, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
BEGIN
    IF f IN ('base62', 'base32', 'hex') THEN
        RETURN f;
    END IF;
    RAISE EXCEPTION 'unknown snowflake text format "%"', @extschema@.snowflake_sql_quote(format)
        USING ERRCODE = '22023', HINT = 'Valid formats are base62, base32 and hex.';
END
$fn$;

