-- The digits of base62 and of Crockford's base32, as tables subscripted by a
-- character's code (0 to 127; a code past 127 is past the table, NULL): the
-- character's value, or 64 where it is no digit of the format, and 0 for the
-- code 0, which only ascii('') gives (before the text's first character).
-- base32 reads lower case and the aliases (O as 0, I and L as 1) too; a
-- hyphen is 64.  The tables have no NULL in them: an array with NULLs is read
-- element by element, many times slower.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_digits62()
RETURNS integer[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN '[0:127]={0,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,
         64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,0,1,2,3,4,5,6,7,8,9,64,64,64,
         64,64,64,64,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,
         35,64,64,64,64,64,64,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,
         58,59,60,61,64,64,64,64,64}'::integer[];

CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_digits32()
RETURNS integer[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN '[0:127]={0,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,
         64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,0,1,2,3,4,5,6,7,8,9,64,64,64,
         64,64,64,64,10,11,12,13,14,15,16,17,1,18,19,1,20,21,0,22,23,24,25,26,64,27,28,29,30,31,
         64,64,64,64,64,64,10,11,12,13,14,15,16,17,1,18,19,1,20,21,0,22,23,24,25,26,64,27,28,29,
         30,31,64,64,64,64,64}'::integer[];

-- The value of the k-th character from the right of txt (k = 0: the last)
-- as a digit of a format, read from its table (above): 0 before the text's
-- first character, NULL for a character outside the format.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_digit(txt text, k integer, digits integer[])
RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN NULLIF(digits[pg_catalog.ascii(pg_catalog.substr(txt, pg_catalog.octet_length(txt) - k, 1))], 64);

-- The number the last 11 (base62) or 13 (base32) characters of txt write,
-- each read with digits, its format's table (NULL if one is no digit).  The
-- table is an argument so that a query has one copy of it to plan, not one
-- for each digit.  base32 is NULL where a 13th digit above 7 would not fit a
-- bigint; for base62 the caller makes sure that the number fits.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_read62(txt text, digits integer[])
RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN
       @extschema@.snowflake_sql_digit(txt, 0, digits) * 1
     + @extschema@.snowflake_sql_digit(txt, 1, digits) * 62
     + @extschema@.snowflake_sql_digit(txt, 2, digits) * 3844
     + @extschema@.snowflake_sql_digit(txt, 3, digits) * 238328
     + @extschema@.snowflake_sql_digit(txt, 4, digits) * 14776336
     + @extschema@.snowflake_sql_digit(txt, 5, digits) * 916132832
     + @extschema@.snowflake_sql_digit(txt, 6, digits) * 56800235584
     + @extschema@.snowflake_sql_digit(txt, 7, digits) * 3521614606208
     + @extschema@.snowflake_sql_digit(txt, 8, digits) * 218340105584896
     + @extschema@.snowflake_sql_digit(txt, 9, digits) * 13537086546263552
     + @extschema@.snowflake_sql_digit(txt, 10, digits) * 839299365868340224;

CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_read32(txt text, digits integer[])
RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN @extschema@.snowflake_sql_digit(txt, 12, digits) <= 7 THEN
       @extschema@.snowflake_sql_digit(txt, 0, digits) * 1
     + @extschema@.snowflake_sql_digit(txt, 1, digits) * 32
     + @extschema@.snowflake_sql_digit(txt, 2, digits) * 1024
     + @extschema@.snowflake_sql_digit(txt, 3, digits) * 32768
     + @extschema@.snowflake_sql_digit(txt, 4, digits) * 1048576
     + @extschema@.snowflake_sql_digit(txt, 5, digits) * 33554432
     + @extschema@.snowflake_sql_digit(txt, 6, digits) * 1073741824
     + @extschema@.snowflake_sql_digit(txt, 7, digits) * 34359738368
     + @extschema@.snowflake_sql_digit(txt, 8, digits) * 1099511627776
     + @extschema@.snowflake_sql_digit(txt, 9, digits) * 35184372088832
     + @extschema@.snowflake_sql_digit(txt, 10, digits) * 1125899906842624
     + @extschema@.snowflake_sql_digit(txt, 11, digits) * 36028797018963968
     + @extschema@.snowflake_sql_digit(txt, 12, digits) * 1152921504606846976
END;
