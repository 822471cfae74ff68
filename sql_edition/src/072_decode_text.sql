-- Every text, with the C extension's errors: snowflake_decode's way for
-- what its expression does not read (below).
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_decode_text(txt text, format text)
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    f text := @extschema@.snowflake_sql_text_format(format);
    alphabet text;
    base integer;
    width integer;        -- digits that always fit (a longer number never does)
    valid text;           -- the format's characters, as a class of a regular expression
    pos integer;
    digits text;          -- the digits: normalized, without hyphens and leading zeros
    v numeric := 0;
    hint text;
BEGIN
    IF f = 'base62' THEN
        alphabet := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
        base := 62;
        width := 11;
        valid := '0-9A-Za-z';
    ELSIF f = 'base32' THEN
        -- Crockford: case-insensitive; O reads as 0, I and L as 1; hyphens ignored.
        alphabet := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
        base := 32;
        width := 13;
        valid := '-0-9A-TV-Za-tv-z';
    ELSE
        alphabet := '0123456789abcdef';
        base := 16;
        width := 16;
        valid := '0-9A-Fa-f';
    END IF;
    -- Linear in the length of the text, whatever it is: the first character
    -- outside the format is found by one regular expression, and the number
    -- is read only when its significant digits fit the format's width.
    pos := pg_catalog.length(pg_catalog.substring(txt, '^[' || valid || ']*')) + 1;
    IF pos <= pg_catalog.length(txt) THEN
        -- Every character before it is ASCII: its character position is
        -- also its byte position.
        RAISE EXCEPTION 'invalid character "%" at position % of % snowflake id "%"',
                        pg_catalog.substr(txt, pos, 1), pos, f, @extschema@.snowflake_sql_quote(txt)
            USING ERRCODE = '22P02',
                  HINT = CASE f
                      WHEN 'base62' THEN 'base62 digits are 0-9, A-Z and a-z, case-sensitive.'
                      WHEN 'base32' THEN 'Crockford base32 digits are 0-9 and A-Z without I, L, '
                                         'O and U, case-insensitive; I and L read as 1, O as 0, '
                                         'and hyphens are ignored.'
                      ELSE 'hex digits are 0-9 and a-f, case-insensitive, without a 0x prefix.'
                  END;
    END IF;
    digits := txt;
    IF f = 'base32' THEN
        digits := pg_catalog.translate(pg_catalog.replace(digits, '-', ''),
                                       'abcdefghijklmnopqrstuvwxyzOIL',
                                       'ABCDEFGHIJKLMNOPQRSTUVWXYZ011');
        digits := pg_catalog.translate(digits, 'OIL', '011');
    ELSIF f = 'hex' THEN
        digits := pg_catalog.translate(digits, 'ABCDEF', 'abcdef');
    END IF;
    IF digits = '' THEN
        RAISE EXCEPTION 'invalid % snowflake id "%"', f, @extschema@.snowflake_sql_quote(txt)
            USING ERRCODE = '22P02', DETAIL = 'The text contains no digits.';
    END IF;
    digits := pg_catalog.ltrim(digits, '0');
    IF pg_catalog.length(digits) <= width THEN
        FOR i IN 1 .. pg_catalog.length(digits) LOOP
            v := v * base + (pg_catalog.strpos(alphabet, pg_catalog.substr(digits, i, 1)) - 1);
        END LOOP;
    END IF;
    IF pg_catalog.length(digits) > width OR v > 9223372036854775807 THEN
        -- Text longer than the format's width that reads as a decimal id,
        -- or as hex, most likely is one: the hint says how to read it.
        IF pg_catalog.octet_length(txt) > width THEN
            IF txt ~ '^[0-9]+$' AND pg_catalog.length(pg_catalog.ltrim(txt, '0')) <= 19
               AND ('0' || pg_catalog.ltrim(txt, '0'))::numeric <= 9223372036854775807 THEN
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
