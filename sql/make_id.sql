-- snowflake_make_id(ts, datacenter_id, worker_id, sequence): the inverse of
-- snowflake_parse under the server's epoch and layout.
SET TimeZone = 'UTC';

-- SPEC's reference vector.
SELECT snowflake_make_id('2017-09-20 13:43:08.849+00', 17, 25, 0);

-- The time is cut down to its millisecond, toward the past.
SELECT snowflake_make_id('2017-09-20 13:43:08.849999+00', 17, 25, 0) = 910499571847892992
       AS cut_to_the_millisecond;

-- Every field in place: the largest node and sequence, the epoch, the last
-- millisecond of the lifetime.
SELECT snowflake_make_id('2017-09-20 13:43:08.849+00', 31, 31, 4095);
SELECT snowflake_make_id('2010-11-04 01:42:54.657+00', 0, 0, 0);
SELECT snowflake_make_id('2080-07-10 17:30:30.208+00', 31, 31, 4095);

-- The inverse of snowflake_parse, for ids of this node and for any parts.
SELECT count(*) AS ids,
       count(*) FILTER (WHERE snowflake_make_id(p.ts, p.datacenter_id, p.worker_id, p.sequence) = x)
         AS made_back
FROM snowflake_generate(5000) x, LATERAL snowflake_parse(x) p;
SELECT bool_and((p.ts, p.unix_ms, p.datacenter_id, p.worker_id, p.sequence)
                = (t, (extract(epoch FROM t) * 1000)::bigint, d, w, s)) AS parses_back
FROM (VALUES ('2011-01-01 00:00:00+00'::timestamptz, 0, 0, 0),
             ('2026-06-30 12:34:56.789+00', 3, 30, 4000),
             ('2079-12-31 23:59:59.999+00', 31, 0, 1)) v(t, d, w, s),
     LATERAL snowflake_parse(snowflake_make_id(t, d, w, s)) p;

-- No uniqueness promise: it makes whatever id the parts say, this node's
-- own ids included.
SELECT snowflake_nextval() AS issued \gset
SELECT snowflake_make_id(p.ts, p.datacenter_id, p.worker_id, p.sequence) = :issued
       AS same_as_an_issued_id
FROM snowflake_parse(:issued) p;

-- STRICT: NULL in, NULL out.
SELECT snowflake_make_id(NULL, 0, 0, 0) IS NULL AS n1, snowflake_make_id(now(), NULL, 0, 0) IS NULL AS n2,
       snowflake_make_id(now(), 0, NULL, 0) IS NULL AS n3, snowflake_make_id(now(), 0, 0, NULL) IS NULL AS n4;

-- Bad input: an error naming the part and its range under this layout.
SELECT snowflake_make_id('2017-09-20 13:43:08.849+00', 32, 0, 0);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT snowflake_make_id('2017-09-20 13:43:08.849+00', -1, 0, 0);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT snowflake_make_id('2017-09-20 13:43:08.849+00', 0, 32, 0);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT snowflake_make_id('2017-09-20 13:43:08.849+00', 0, -2147483648, 0);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT snowflake_make_id('2017-09-20 13:43:08.849+00', 0, 0, 4096);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT snowflake_make_id('2017-09-20 13:43:08.849+00', 0, 0, -1);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT snowflake_make_id('2010-11-04 01:42:54.656+00', 0, 0, 0);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT snowflake_make_id('2080-07-10 17:30:30.209+00', 0, 0, 0);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT snowflake_make_id('infinity', 0, 0, 0);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT snowflake_make_id('-infinity', 0, 0, 0);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- The time is checked first, then the fields in their order in the id.
SELECT snowflake_make_id('2009-01-01 00:00:00+00', 99, 99, 99999);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT snowflake_make_id('2017-09-20 13:43:08.849+00', 99, 99, 99999);
\echo SQLSTATE :LAST_ERROR_SQLSTATE

SELECT proname, provolatile, proisstrict, proparallel FROM pg_proc WHERE proname = 'snowflake_make_id';
