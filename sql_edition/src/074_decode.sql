-- snowflake_decode: one expression, which PostgreSQL inlines into the query.
-- base62 and base32: a text of the format's width (11, 13), the width
-- snowflake_encode writes, without a backslash, by its bytes, each looked up
-- with its place (snowflake_sql_read62_full, snowflake_sql_read32_full);
-- a shorter one (or one with a backslash), the digits of a text whose value
-- fits an id, each read by its character's code (snowflake_sql_read62,
-- snowflake_sql_read32); where the width could overflow, base62's text is
-- compared with 2^63-1's, base32's first digit checked;
-- hex, a text of 1 to 16 characters each of 0-9, a-f and A-F (checked on its
-- bytes in one call, ltrim: without a backslash, text cast to bytea is its
-- bytes), read as a bit string (its first digit at most 7 where it has 16).
-- What that reads as NULL (a character outside the format, a hyphen, a longer
-- text, an empty one, a format written in capitals) is read by
-- snowflake_sql_decode_text, which gives the same value or the C extension's
-- error.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_decode(txt text, format text DEFAULT 'base62')
RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN COALESCE(
    CASE
        WHEN format = 'base62' AND pg_catalog.octet_length(txt) = 11
             AND txt COLLATE "C" <= 'AzL8n0Y58m7' AND pg_catalog.strpos(txt, '\') = 0 THEN
            @extschema@.snowflake_sql_read62_full(txt, @extschema@.snowflake_sql_places62())
        WHEN format = 'base32' AND pg_catalog.octet_length(txt) = 13
             AND pg_catalog.strpos(txt, '\') = 0 THEN
            @extschema@.snowflake_sql_read32_full(txt, @extschema@.snowflake_sql_places32())
        WHEN format = 'base62' AND pg_catalog.octet_length(txt) BETWEEN 1 AND 11
             AND (pg_catalog.octet_length(txt) < 11 OR txt COLLATE "C" <= 'AzL8n0Y58m7') THEN
            @extschema@.snowflake_sql_read62(txt, @extschema@.snowflake_sql_digits62())
        WHEN format = 'base32' AND pg_catalog.octet_length(txt) BETWEEN 1 AND 13 THEN
            @extschema@.snowflake_sql_read32(txt, @extschema@.snowflake_sql_digits32())
        WHEN format = 'hex'
             AND (pg_catalog.octet_length(txt) BETWEEN 1 AND 15
                  OR (pg_catalog.octet_length(txt) = 16 AND txt COLLATE "C" < '8'))
             AND pg_catalog.strpos(txt, '\') = 0
             AND pg_catalog.ltrim(txt::bytea,
                                  pg_catalog.decode('30313233343536373839616263646566414243444546', 'hex'))
                 = ''::bytea THEN
            ('x' || pg_catalog.lpad(txt, 16, '0'))::bit(64)::bigint
    END,
    @extschema@.snowflake_sql_decode_text(txt, format));
COMMENT ON FUNCTION @extschema@.snowflake_decode(text, text) IS 'id from base62, base32 (Crockford) or hex text';

-- Earlier versions read each character through these (one table each).
DROP FUNCTION IF EXISTS @extschema@.snowflake_sql_digit62(text, integer);
DROP FUNCTION IF EXISTS @extschema@.snowflake_sql_digit32(text, integer);
DROP FUNCTION IF EXISTS @extschema@.snowflake_sql_digit16(text, integer);
