CREATE OR REPLACE FUNCTION @extschema@.snowflake_decode(txt text, format text DEFAULT 'base62')
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    f text := @extschema@.snowflake_sql_text_format(format);
    alphabet text;
    base integer;
    ch text;
    d integer;
    v numeric := 0;
    any_digit boolean := false;
    overflow boolean := false;
    width integer;
    hint text;
BEGIN
    IF f = 'base62' THEN
        alphabet := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
        base := 62;
    ELSIF f = 'base32' THEN
        alphabet := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
        base := 32;
    ELSE
        alphabet := '0123456789abcdef';
        base := 16;
    END IF;
    FOR i IN 1 .. pg_catalog.length(txt) LOOP
        ch := pg_catalog.substr(txt, i, 1);
        IF f = 'base32' THEN
            CONTINUE WHEN ch = '-';
            -- Crockford: case-insensitive; O reads as 0, I and L as 1.
            ch := pg_catalog.translate(ch, 'abcdefghijklmnopqrstuvwxyzOIL',
                                       'ABCDEFGHIJKLMNOPQRSTUVWXYZ011');
            ch := pg_catalog.translate(ch, 'OIL', '011');
        ELSIF f = 'hex' THEN
            ch := pg_catalog.translate(ch, 'ABCDEF', 'abcdef');
        END IF;
        d := pg_catalog.strpos(alphabet, ch) - 1;
        IF d < 0 OR pg_catalog.octet_length(ch) <> 1 THEN
            -- Every character before it is ASCII: its character position is
            -- also its byte position.
            RAISE EXCEPTION 'invalid character "%" at position % of % snowflake id "%"',
                            pg_catalog.substr(txt, i, 1), i, f, @extschema@.snowflake_sql_quote(txt)
                USING ERRCODE = '22P02',
                      HINT = CASE f
                          WHEN 'base62' THEN 'base62 digits are 0-9, A-Z and a-z, case-sensitive.'
                          WHEN 'base32' THEN 'Crockford base32 digits are 0-9 and A-Z without I, L, '
                                             'O and U, case-insensitive; I and L read as 1, O as 0, '
                                             'and hyphens are ignored.'
                          ELSE 'hex digits are 0-9 and a-f, case-insensitive, without a 0x prefix.'
                      END;
        END IF;
        any_digit := true;
        IF NOT overflow THEN
            v := v * base + d;
            overflow := v > 9223372036854775807;
        END IF;
    END LOOP;
    IF NOT any_digit THEN
        RAISE EXCEPTION 'invalid % snowflake id "%"', f, @extschema@.snowflake_sql_quote(txt)
            USING ERRCODE = '22P02', DETAIL = 'The text contains no digits.';
    END IF;
    IF overflow THEN
        -- Text longer than the format's width that reads as a decimal id,
        -- or as hex, most likely is one: the hint says how to read it.
        width := CASE f WHEN 'base62' THEN 11 WHEN 'base32' THEN 13 ELSE 16 END;
        IF pg_catalog.octet_length(txt) > width THEN
            IF txt ~ '^[0-9]+$' AND txt::numeric <= 9223372036854775807 THEN
                hint := pg_catalog.format('"%s" looks like a decimal id, which needs no decoding: '
                                          '''%s''::bigint.', txt, txt);
            ELSIF f <> 'hex' AND txt ~ '^[0-9A-Fa-f]+$'
                  AND (pg_catalog.length(pg_catalog.ltrim(txt, '0')) < 16
                       OR (pg_catalog.length(pg_catalog.ltrim(txt, '0')) = 16
                           AND pg_catalog.ltrim(txt, '0') < '8')) THEN
                hint := pg_catalog.format('"%s" looks like hex: snowflake_decode(''%s'', ''hex'').',
                                          txt, txt);
            END IF;
        END IF;
        IF hint IS NULL THEN
            RAISE EXCEPTION '% snowflake id "%" is out of range', f, @extschema@.snowflake_sql_quote(txt)
                USING ERRCODE = '22003',
                      DETAIL = 'Snowflake ids are at most 9223372036854775807 (2^63-1).';
        END IF;
        RAISE EXCEPTION '% snowflake id "%" is out of range', f, @extschema@.snowflake_sql_quote(txt)
            USING ERRCODE = '22003',
                  DETAIL = 'Snowflake ids are at most 9223372036854775807 (2^63-1).',
                  HINT = hint;
    END IF;
    RETURN v::bigint;
END
$fn$;
COMMENT ON FUNCTION @extschema@.snowflake_decode(text, text) IS 'id from base62, base32 (Crockford) or hex text';

