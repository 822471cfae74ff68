-- Hostile input for every SQL function: each gets a clean ERROR with a
-- fitting SQLSTATE, or NULL for a NULL argument (all functions are STRICT).
-- try() runs one expression and reports its result or its SQLSTATE+message.
SET TimeZone = 'UTC';
CREATE FUNCTION pg_temp.try(expr text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r text;
BEGIN
    EXECUTE 'SELECT (' || expr || ')::text' INTO r;
    RETURN coalesce('ok ' || left(r, 60), 'NULL');
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ' ' || left(SQLERRM, 90);
END
$$;

SELECT expr, pg_temp.try(expr) AS outcome FROM (VALUES
    -- NULL in, NULL out
    ('snowflake_parse(NULL)'),
    ('snowflake_timestamp(NULL)'),
    ('snowflake_min_id(NULL)'),
    ('snowflake_max_id(NULL)'),
    ('snowflake_encode(NULL)'),
    ('snowflake_encode(1, NULL)'),
    ('snowflake_decode(NULL)'),
    ('snowflake_decode(''1'', NULL)'),
    ('snowflake_format(NULL)'),
    ('snowflake_parse_serial(NULL)'),
    ('(SELECT count(*) FROM snowflake_generate(NULL))'),
    -- negative and extreme bigints
    ('snowflake_parse(-1)'),
    ('snowflake_parse(-9223372036854775808)'),
    ('(snowflake_parse(9223372036854775807)).ts'),
    ('snowflake_timestamp(-1)'),
    ('snowflake_timestamp(9223372036854775807)'),
    ('snowflake_encode(-1)'),
    ('snowflake_encode(-9223372036854775808, ''hex'')'),
    ('snowflake_format(-1)'),
    ('snowflake_parse(-1, 0, 5, 5, 12)'),
    -- infinite, pre-epoch and post-lifetime times
    ('snowflake_min_id(''infinity'')'),
    ('snowflake_max_id(''-infinity'')'),
    ('snowflake_min_id(''2010-11-04 01:42:54.656+00'')'),
    ('snowflake_min_id(''2010-11-04 01:42:54.657+00'')'),
    ('snowflake_max_id(''2080-07-10 17:30:30.208+00'')'),
    ('snowflake_max_id(''2080-07-10 17:30:30.209+00'')'),
    ('snowflake_min_id(''4713-01-01 BC'')'),
    ('snowflake_min_id(''294276-12-31'')'),
    -- bad layout arguments to the IMMUTABLE variants
    ('snowflake_timestamp(1, -1, 5, 5, 12)'),
    ('snowflake_timestamp(1, 0, 5, 5, 0)'),
    ('snowflake_timestamp(1, 0, 10, 10, 10)'),
    ('snowflake_timestamp(1, 0, -1, 5, 12)'),
    ('snowflake_min_id(now(), 9223372036854775807, 5, 5, 12)'),
    -- empty, huge, non-ASCII and invalid text
    ('snowflake_decode('''')'),
    ('snowflake_decode(''   '')'),
    ('snowflake_decode(''abc!'')'),
    ('snowflake_decode(''€uro'')'),
    ('snowflake_decode(repeat(''0'', 100000) || ''1'')'),
    ('snowflake_decode(repeat(''z'', 100000))'),
    ('snowflake_decode(''8000000000000000'', ''hex'')'),
    ('snowflake_decode(''AzL8n0Y58m8'')'),
    ('snowflake_decode(''U'', ''base32'')'),
    ('snowflake_decode(''-'', ''base32'')'),
    ('snowflake_decode(''0x1f'', ''hex'')'),
    -- unknown formats
    ('snowflake_encode(1, ''base64'')'),
    ('snowflake_encode(1, '''')'),
    ('snowflake_decode(''1'', ''BASE62'')'),
    ('snowflake_decode(''1'', ''décimal'')'),
    -- business serials
    ('snowflake_parse_serial('''')'),
    ('snowflake_parse_serial(''2017092013430884917250000'', ''ORD-'')'),
    ('snowflake_parse_serial(''20170230134308849172500000'')'),
    ('snowflake_parse_serial(''2017022913430884917250000'')'),
    ('snowflake_parse_serial(''2017092013430884999250000'')'),
    ('snowflake_parse_serial(''2017092013430884917259999'')'),
    ('snowflake_parse_serial(''2009092013430884917250000'')'),
    ('snowflake_parse_serial(''２017092013430884917250000'')'),
    -- batch sizes
    ('(SELECT count(*) FROM snowflake_generate(0))'),
    ('(SELECT count(*) FROM snowflake_generate(-2147483648))'),
    ('(SELECT count(*) FROM snowflake_generate(1000001))'),
    ('(SELECT count(*) FROM snowflake_generate(2147483647))')
) v(expr);

-- Nothing above crashed a backend: this session is still the same one.
SELECT 'still connected' AS status;
