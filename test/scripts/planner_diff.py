#!/usr/bin/env python3
"""The corpus of the planner differential test (planner_diff.sh): queries
that call no snowflake function, over bigint, integer and timestamptz
columns with negative values, a partitioned table, a view, joins,
subqueries, literals, casts, function calls and the parameters of generic
plans.  Printed as one psql script: the tables, then for every query its
plan (EXPLAIN (COSTS OFF)) and its rows.  The same script runs on a server
with snowflake preloaded and created and on one without it; the two
transcripts must be identical.

    python3 planner_diff.py > corpus.sql
    python3 planner_diff.py --queries-only > queries.sql   (the tables made already)

Deterministic: the same script every run.  The tables are smaller than
ANALYZE's sample, so both servers have the same statistics.
"""
import itertools

SETUP = r"""
SET max_parallel_workers_per_gather = 0;
SET TimeZone = 'UTC';
CREATE TABLE nums (id bigint PRIMARY KEY, n integer NOT NULL, ts timestamptz NOT NULL, g integer)
    WITH (autovacuum_enabled = off);
INSERT INTO nums
SELECT i, (i % 97) - 40, timestamptz '2026-01-01 00:00:00+00' + i * interval '37 minutes',
       CASE WHEN i % 11 = 0 THEN NULL ELSE i % 13 END
FROM generate_series(-3000, 5999) i;
CREATE INDEX nums_n ON nums (n);
CREATE INDEX nums_ts ON nums (ts);
CREATE INDEX nums_brin ON nums USING brin (ts);
CREATE TABLE keys (k integer PRIMARY KEY, v bigint, t timestamptz) WITH (autovacuum_enabled = off);
INSERT INTO keys
SELECT k, k * 7 - 100, timestamptz '2026-01-01 00:00:00+00' + k * interval '5 hours'
FROM generate_series(-50, 199) k;
CREATE INDEX keys_v ON keys (v);
CREATE TABLE lim (lo integer, hi bigint, t timestamptz) WITH (autovacuum_enabled = off);
INSERT INTO lim VALUES (-5, 3, '2026-01-02+00'), (0, 100, '2025-12-31+00'), (-2000, -1000, '2026-02-01+00');
CREATE TABLE parts (id bigint NOT NULL, n integer, PRIMARY KEY (id)) PARTITION BY RANGE (id);
CREATE TABLE parts_neg PARTITION OF parts FOR VALUES FROM (MINVALUE) TO (0) WITH (autovacuum_enabled = off);
CREATE TABLE parts_low PARTITION OF parts FOR VALUES FROM (0) TO (1000) WITH (autovacuum_enabled = off);
CREATE TABLE parts_mid PARTITION OF parts FOR VALUES FROM (1000) TO (4000) WITH (autovacuum_enabled = off);
CREATE TABLE parts_rest PARTITION OF parts DEFAULT WITH (autovacuum_enabled = off);
INSERT INTO parts SELECT id, n FROM nums;
CREATE VIEW nums_pos AS SELECT * FROM nums WHERE id >= 0;
CREATE VIEW nums_recent AS SELECT id, n FROM nums WHERE ts >= '2026-01-20 00:00:00+00';
ANALYZE nums, keys, lim, parts;
"""

# Values a bigint is compared with: literals, negative ones, strings,
# casts, function calls, arithmetic, a scalar subquery.
BIGINT_VALUES = ["0", "-5", "3", "'0'", "'-7'", "int8(-5)", "int8(0)", "(-5)::bigint",
                 "'12'::text::bigint", "abs(-10)", "2 + 1", "100::smallint", "greatest(-3, 4)",
                 "(SELECT min(lo) FROM lim)", "length('abc')", "-2147483648", "9223372036854775807"]
INT_VALUES = ["0", "-5", "'3'", "int4(-7)", "abs(-10)", "(-3)::integer", "10::bigint", "'-40'::text::int"]
TS_VALUES = ["'2026-01-02 00:00:00+00'", "'2026-01-02'::date", "'2026-01-03 12:00'::timestamp",
             "now() - interval '100 years'", "date_trunc('day', timestamptz '2026-01-05 13:00+00')",
             "'2026-01-04 00:00+00'::text::timestamptz", "'-infinity'", "'infinity'",
             "(SELECT max(t) FROM lim)"]
OPS = ["=", "<>", "<", "<=", ">", ">="]


def single_conditions():
    for col, values in (("id", BIGINT_VALUES), ("n", INT_VALUES), ("ts", TS_VALUES)):
        for op, v in itertools.product(OPS, values):
            yield f"{col} {op} {v}"


def pair_conditions():
    # Lower and upper bounds side by side (the shape that lost a user's
    # "id >= 0" once), with BETWEEN and without.
    lows = ["0", "'0'", "-5", "int8(-5)", "(SELECT min(lo) FROM lim)", "abs(-2)"]
    highs = ["3", "100", "int8(100)", "'7'"]
    for lo1, lo2 in itertools.combinations(lows, 2):
        yield f"id >= {lo1} AND id >= {lo2}"
    for lo, hi in itertools.product(lows, highs):
        yield f"id BETWEEN {lo} AND {hi}"
        yield f"id > {lo} AND id < {hi} AND id <> 2"
    yield "id BETWEEN int8(-5) AND 100 AND id BETWEEN '0' AND 3"
    yield "id NOT BETWEEN -10 AND 10 AND id < 50"
    yield "id IN (-3, 0, 4, 17, 2999)"
    yield "id = ANY (ARRAY[-1, 0, 1]::bigint[])"
    yield "id IN (SELECT hi FROM lim) OR n < -39"
    yield "n IN (-40, 0, 56) AND id >= 0"
    yield "g IS NULL AND id BETWEEN -100 AND 100"
    yield "ts BETWEEN '2026-01-02' AND '2026-01-03' AND id >= 0"
    yield "ts >= '2026-01-02'::date AND ts < '2026-01-02'::date + 1"
    yield "ts = '2026-01-01 00:37:00+00'"


def table_queries():
    for cond in itertools.chain(single_conditions(), pair_conditions()):
        yield f"SELECT count(*), sum(id), min(id), max(id) FROM nums WHERE {cond}"


def other_queries():
    yield from [
        # the reproducers of the wrong rows
        "SELECT array_agg(id ORDER BY id) FROM nums, lim WHERE id >= lim.lo::bigint AND id BETWEEN '0' AND 3",
        "SELECT array_agg(id ORDER BY id) FROM nums WHERE id BETWEEN int8(-5) AND 100 AND id BETWEEN '0' AND 3",
        # joins
        "SELECT count(*), sum(k.v) FROM nums x JOIN keys k ON x.n = k.k WHERE x.id >= 0 AND x.id < 500",
        "SELECT count(*) FROM nums x JOIN keys k ON x.id = k.v WHERE k.k BETWEEN -10 AND 10",
        "SELECT count(*) FROM nums x JOIN keys k ON x.ts = k.t",
        "SELECT count(*) FROM nums x JOIN keys k ON x.ts >= k.t AND x.ts < k.t + interval '1 hour' WHERE k.k < 20",
        "SELECT count(*) FROM nums x JOIN lim ON x.id >= lim.lo AND x.id <= lim.hi",
        "SELECT count(*) FROM nums x LEFT JOIN keys k ON x.id = k.v AND k.k > 0 WHERE x.id BETWEEN -200 AND 200",
        "SELECT count(*) FROM keys k LEFT JOIN nums x ON x.id = k.v AND x.id >= 0 WHERE x.id IS NULL",
        "SELECT count(*) FROM nums x, lim WHERE x.id >= lim.lo::bigint AND x.id >= 0 AND x.id <= lim.hi",
        "SELECT count(*) FROM nums a JOIN nums b ON a.id = b.id + 1 WHERE a.id >= 0 AND b.id >= int8(-3)",
        "SELECT count(*) FROM nums x JOIN LATERAL (SELECT * FROM keys k WHERE k.v >= x.id LIMIT 1) s ON true WHERE x.id BETWEEN 0 AND 50",
        # subqueries
        "SELECT count(*) FROM nums WHERE id IN (SELECT v FROM keys WHERE k >= 0)",
        "SELECT count(*) FROM nums x WHERE EXISTS (SELECT 1 FROM keys k WHERE k.v = x.id AND k.k < 10)",
        "SELECT count(*) FROM nums x WHERE NOT EXISTS (SELECT 1 FROM keys k WHERE k.v = x.id) AND x.id BETWEEN -20 AND 20",
        "SELECT count(*) FROM nums WHERE id >= (SELECT max(hi) FROM lim) AND id >= 0",
        "SELECT count(*) FROM nums WHERE id > ALL (SELECT hi FROM lim) AND id < 200",
        "SELECT (SELECT count(*) FROM nums x WHERE x.id >= k.v AND x.id >= 0) FROM keys k WHERE k.k BETWEEN 0 AND 3 ORDER BY k.k",
        "WITH w AS MATERIALIZED (SELECT id FROM nums WHERE id >= -10 AND id >= 0) SELECT count(*) FROM w WHERE id < 30",
        "WITH w AS (SELECT id, n FROM nums WHERE n >= 0) SELECT count(*) FROM w JOIN keys k ON w.n = k.k",
        "SELECT count(*) FROM (SELECT id FROM nums WHERE id >= 0 UNION ALL SELECT v FROM keys WHERE v >= int8(-5)) u WHERE id < 100",
        "SELECT n, count(*) FROM nums WHERE id BETWEEN -100 AND 100 GROUP BY n HAVING count(*) > 2 ORDER BY n",
        "SELECT id FROM nums WHERE id >= 0 ORDER BY id DESC LIMIT 5",
        "SELECT id FROM nums WHERE id >= int8(-5) AND id >= 0 ORDER BY id LIMIT 5",
        # views
        "SELECT count(*) FROM nums_pos WHERE id <= 3",
        "SELECT count(*) FROM nums_pos WHERE id >= int8(-5) AND id <= 10",
        "SELECT count(*) FROM nums_recent WHERE id < 1000",
        "SELECT count(*) FROM nums_recent r JOIN nums_pos p USING (id) WHERE p.n > 0",
        # partitions
        "SELECT count(*) FROM parts WHERE id >= 0 AND id < 500",
        "SELECT count(*) FROM parts WHERE id >= int8(-5) AND id < 500",
        "SELECT count(*) FROM parts WHERE id < 0",
        "SELECT count(*) FROM parts WHERE id >= 4000",
        "SELECT count(*) FROM parts WHERE id >= (SELECT min(lo) FROM lim) AND id < 10",
        "SELECT count(*) FROM parts WHERE id BETWEEN '0' AND 3 AND id >= int8(-5)",
        "SELECT count(*) FROM parts p JOIN lim ON p.id = lim.hi",
        "SELECT count(*) FROM parts p JOIN keys k ON p.id = k.v WHERE k.k < 5",
        "SELECT count(*) FROM parts WHERE id IN (-1, 0, 999, 1000, 5000)",
        # errors, raised alike
        "SELECT count(*) FROM nums WHERE id >= 0 AND 1 / (id - id) > 0",
        "SELECT count(*) FROM nums WHERE id::smallint > 0 AND id >= int8(-5)",
        "SELECT count(*) FROM nums WHERE ts >= 'not a time'",
        # DML (in a transaction that is rolled back)
        "DELETE FROM nums WHERE id >= int8(-5) AND id BETWEEN '0' AND 3 RETURNING id",
        "UPDATE parts SET n = n + 1 WHERE id >= 0 AND id < 3 RETURNING id, n",
    ]


PREPARED = [
    ("bigint, bigint", "SELECT count(*), sum(id) FROM nums WHERE id >= $1 AND id <= $2",
     [("-5", "3"), ("0", "100"), ("int8(-5)", "'0'")]),
    ("bigint", "SELECT count(*) FROM nums WHERE id >= $1 AND id >= 0 AND id < 50",
     [("-5",), ("10",)]),
    ("timestamptz, timestamptz", "SELECT count(*) FROM nums WHERE ts >= $1 AND ts < $2",
     [("'2026-01-02+00'", "'2026-01-03+00'"), ("'-infinity'", "'2026-01-01+00'")]),
    ("bigint", "SELECT count(*) FROM parts WHERE id >= $1 AND id < $1 + 100",
     [("-50",), ("950",), ("4000",)]),
    ("integer", "SELECT count(*) FROM nums x JOIN keys k ON x.n = k.k WHERE k.k >= $1",
     [("-10",), ("50",)]),
]


def statement(sql, n):
    dml = sql.startswith(("DELETE", "UPDATE"))
    out = [f"\\echo ==== {n}"]
    if dml:
        out.append("BEGIN;")
    out.append(f"EXPLAIN (COSTS OFF) {sql};")
    out.append(f"{sql};")
    if dml:
        out.append("ROLLBACK;")
    return "\n".join(out)


def main(queries_only=False):
    if queries_only:
        # The session's settings, without the tables (already made).
        print("\n".join(l for l in SETUP.splitlines() if l.startswith("SET ")))
    else:
        print(SETUP)
    n = 0
    for sql in itertools.chain(table_queries(), other_queries()):
        n += 1
        print(statement(sql, n))
    for i, (types, body, runs) in enumerate(PREPARED):
        name = f"p{i}"
        print(f"PREPARE {name}({types}) AS {body};")
        for mode in ("force_generic_plan", "force_custom_plan"):
            print(f"SET plan_cache_mode = {mode};")
            for args in runs:
                n += 1
                call = f"EXECUTE {name}({', '.join(args)})"
                print(f"\\echo ==== {n}")
                print(f"EXPLAIN (COSTS OFF) {call};")
                print(f"{call};")
        print("RESET plan_cache_mode;")
        print(f"DEALLOCATE {name};")
    print(f"\\echo ==== {n} queries")


if __name__ == "__main__":
    import sys
    main(queries_only="--queries-only" in sys.argv[1:])
