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


-- The value of the k-th character from the right of txt as a digit of a
-- format (k = 0: the last), by its code in a table of the codes 0 to 127:
-- 0 before the text's first character (ascii('') is 0), NULL for a character
-- outside the format (64 in the table; a code past 127 is past the table).
-- base32 reads Crockford's lower case and aliases (O as 0, I and L as 1)
-- too; a hyphen is NULL.  The table has no NULL in it: an array with NULLs
-- is read element by element, many times slower.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_digit62(txt text, k integer)
RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN NULLIF(('{0,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,
         64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,0,1,2,3,4,5,6,7,8,9,64,64,64,
         64,64,64,64,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,
         34,35,64,64,64,64,64,64,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,
         56,57,58,59,60,61,64,64,64,64,64}'::integer[])
       [pg_catalog.ascii(pg_catalog.substr(txt, pg_catalog.octet_length(txt) - k, 1)) + 1], 64);

CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_digit32(txt text, k integer)
RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN NULLIF(('{0,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,
         64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,0,1,2,3,4,5,6,7,8,9,64,64,64,
         64,64,64,64,10,11,12,13,14,15,16,17,1,18,19,1,20,21,0,22,23,24,25,26,64,27,28,29,30,
         31,64,64,64,64,64,64,10,11,12,13,14,15,16,17,1,18,19,1,20,21,0,22,23,24,25,26,64,27,
         28,29,30,31,64,64,64,64,64}'::integer[])
       [pg_catalog.ascii(pg_catalog.substr(txt, pg_catalog.octet_length(txt) - k, 1)) + 1], 64);

CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_digit16(txt text, k integer)
RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN NULLIF(('{0,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,
         64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,0,1,2,3,4,5,6,7,8,9,64,64,64,
         64,64,64,64,10,11,12,13,14,15,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,
         64,64,64,64,64,64,64,64,10,11,12,13,14,15,64,64,64,64,64,64,64,64,64,64,64,64,64,64,
         64,64,64,64,64,64,64,64,64,64,64}'::integer[])
       [pg_catalog.ascii(pg_catalog.substr(txt, pg_catalog.octet_length(txt) - k, 1)) + 1], 64);

-- snowflake_decode: one expression, which PostgreSQL inlines into the query:
-- the digits of a text of at most the format's width (11, 13, 16) whose
-- value fits an id (its first digit checked where the width could overflow),
-- each read by its code, in constant time.  What that reads as NULL (a
-- character outside the format, a hyphen, a longer text, an empty one, a
-- format written in capitals) is read by snowflake_sql_decode_text, which
-- gives the same value or the C extension's error.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_decode(txt text, format text DEFAULT 'base62')
RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN COALESCE(
    CASE
        WHEN format = 'base62' AND pg_catalog.octet_length(txt) BETWEEN 1 AND 11
             AND (pg_catalog.octet_length(txt) < 11 OR txt COLLATE "C" <= 'AzL8n0Y58m7') THEN
                  @extschema@.snowflake_sql_digit62(txt, 0) * 1
                + @extschema@.snowflake_sql_digit62(txt, 1) * 62
                + @extschema@.snowflake_sql_digit62(txt, 2) * 3844
                + @extschema@.snowflake_sql_digit62(txt, 3) * 238328
                + @extschema@.snowflake_sql_digit62(txt, 4) * 14776336
                + @extschema@.snowflake_sql_digit62(txt, 5) * 916132832
                + @extschema@.snowflake_sql_digit62(txt, 6) * 56800235584
                + @extschema@.snowflake_sql_digit62(txt, 7) * 3521614606208
                + @extschema@.snowflake_sql_digit62(txt, 8) * 218340105584896
                + @extschema@.snowflake_sql_digit62(txt, 9) * 13537086546263552
                + @extschema@.snowflake_sql_digit62(txt, 10) * 839299365868340224
        WHEN format = 'base32' AND pg_catalog.octet_length(txt) BETWEEN 1 AND 13
             AND (pg_catalog.octet_length(txt) < 13 OR @extschema@.snowflake_sql_digit32(txt, 12) <= 7) THEN
                  @extschema@.snowflake_sql_digit32(txt, 0) * 1
                + @extschema@.snowflake_sql_digit32(txt, 1) * 32
                + @extschema@.snowflake_sql_digit32(txt, 2) * 1024
                + @extschema@.snowflake_sql_digit32(txt, 3) * 32768
                + @extschema@.snowflake_sql_digit32(txt, 4) * 1048576
                + @extschema@.snowflake_sql_digit32(txt, 5) * 33554432
                + @extschema@.snowflake_sql_digit32(txt, 6) * 1073741824
                + @extschema@.snowflake_sql_digit32(txt, 7) * 34359738368
                + @extschema@.snowflake_sql_digit32(txt, 8) * 1099511627776
                + @extschema@.snowflake_sql_digit32(txt, 9) * 35184372088832
                + @extschema@.snowflake_sql_digit32(txt, 10) * 1125899906842624
                + @extschema@.snowflake_sql_digit32(txt, 11) * 36028797018963968
                + @extschema@.snowflake_sql_digit32(txt, 12) * 1152921504606846976
        WHEN format = 'hex' AND pg_catalog.octet_length(txt) BETWEEN 1 AND 16
             AND (pg_catalog.octet_length(txt) < 16 OR @extschema@.snowflake_sql_digit16(txt, 15) <= 7) THEN
                  @extschema@.snowflake_sql_digit16(txt, 0) * 1
                + @extschema@.snowflake_sql_digit16(txt, 1) * 16
                + @extschema@.snowflake_sql_digit16(txt, 2) * 256
                + @extschema@.snowflake_sql_digit16(txt, 3) * 4096
                + @extschema@.snowflake_sql_digit16(txt, 4) * 65536
                + @extschema@.snowflake_sql_digit16(txt, 5) * 1048576
                + @extschema@.snowflake_sql_digit16(txt, 6) * 16777216
                + @extschema@.snowflake_sql_digit16(txt, 7) * 268435456
                + @extschema@.snowflake_sql_digit16(txt, 8) * 4294967296
                + @extschema@.snowflake_sql_digit16(txt, 9) * 68719476736
                + @extschema@.snowflake_sql_digit16(txt, 10) * 1099511627776
                + @extschema@.snowflake_sql_digit16(txt, 11) * 17592186044416
                + @extschema@.snowflake_sql_digit16(txt, 12) * 281474976710656
                + @extschema@.snowflake_sql_digit16(txt, 13) * 4503599627370496
                + @extschema@.snowflake_sql_digit16(txt, 14) * 72057594037927936
                + @extschema@.snowflake_sql_digit16(txt, 15) * 1152921504606846976
    END,
    @extschema@.snowflake_sql_decode_text(txt, format));
COMMENT ON FUNCTION @extschema@.snowflake_decode(text, text) IS 'id from base62, base32 (Crockford) or hex text';
