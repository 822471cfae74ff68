-- Multibyte text in the codec and serial functions: positions count
-- characters, quoted text is cut on a character boundary.  Needs a UTF8
-- database; elsewhere the test ends here (expected/toolkit_multibyte_1.out).
SELECT getdatabaseencoding() <> 'UTF8' AS skip_test \gset
\if :skip_test
\quit
\endif
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS snowflake;
RESET client_min_messages;
\set VERBOSITY default

-- A multibyte character is not a digit: reported whole, with its position.
SELECT snowflake_decode('15G63é', 'base62');
SELECT snowflake_decode('日本', 'hex');
SELECT snowflake_decode('０', 'hex');
SELECT snowflake_decode('0S8N–YH5E', 'base32');
SELECT snowflake_decode(repeat('é', 1000));
-- An unknown format name is cut to 40 bytes on a character boundary.
SELECT snowflake_encode(1, repeat('é', 100));
SELECT snowflake_decode('1', 'héx');

-- Multibyte prefixes: compared byte for byte, counted in characters.
SELECT snowflake_format(910499571847892992, '注文-') AS multibyte_prefix,
       snowflake_parse_serial('注文-2017092013430884917250000', '注文-') AS id;
SELECT length(snowflake_format(910499571847892992, '注文-')) AS characters,
       octet_length(snowflake_format(910499571847892992, '注文-')) AS bytes;
SELECT snowflake_parse_serial('注文-20170920134308849172500x0', '注文-');
SELECT snowflake_parse_serial('注文-2017132013430884917250000', '注文-');
SELECT snowflake_parse_serial('注文-2017092013430884917254096', '注文-');
SELECT snowflake_parse_serial('注文2017092013430884917250000', '注文-');
SELECT snowflake_parse_serial('２017092013430884917250000');
SELECT snowflake_parse_serial('2017092013430884917250000é');
