#!/bin/sh
# Refuses a source of the SQL edition that could run another role's code
# (sql_edition/build.sh runs it on sql_edition/src/*.sql; the rules are those
# of src/001_install_schema.sql):
#
#   sh sql_edition/check.sh FILE...
#
#  1. every function in PL/pgSQL has SET search_path = pg_catalog, pg_temp
#     (never FROM CURRENT), and every SQL function has a standard body
#     (RETURN or BEGIN ATOMIC: its names are resolved when it is created);
#     but a PL/pgSQL function whose header says "-- names qualified" (the
#     fast path, which a SET would slow down) has, in its body, every
#     operator written OPERATOR(pg_catalog.op) and every function called
#     with its schema (COALESCE, GREATEST and CASE are syntax);
#  2. outside comments and string literals, every name of the edition's
#     objects (snowflake_...) is written with its schema, @extschema@. -- but
#     a trigger's name and a function's name qualifying its parameter
#     (snowflake_configure.epoch_ms) -- and so is a relation named in a
#     string ('@extschema@.snowflake_sql_counter'::regclass);
#  3. the operator the edition creates is created and commented with its
#     schema;
#  4. no polymorphic type (anyelement, anyarray, ...) outside comments and
#     the DROP of an earlier version's function: another role that may
#     create in the install schema could add an overload of an exact type,
#     which a call written with its schema would run instead.
# Needs only a POSIX shell, grep and awk.
set -eu
[ $# -ge 1 ] || { echo "usage: check.sh FILE..." >&2; exit 2; }

if grep -n -E '(^|[^a-z_])any(element|array|nonarray|compatible[a-z]*|enum|range|multirange)([^a-z_]|$)' "$@" |
    grep -v -E '^[^:]*:[0-9]+:[[:space:]]*--|:DROP FUNCTION IF EXISTS ' >&2; then
    echo "check.sh: the lines above use a polymorphic type (rule 4)" >&2
    exit 1
fi

awk '
function failat(at, msg) { printf "%s:%d: %s\n", FILENAME, at, msg > "/dev/stderr"; bad = 1 }
function fail(msg) { failat(FNR, msg) }
function unended() {
    if (qualified) {
        printf "%s: a \"-- names qualified\" body not ended by $body$\n", prev > "/dev/stderr"
        bad = 1
    }
}
FNR == 1 {
    unended()
    instr = 0; header = ""; next_is_header = 0; qualified = 0; seen_body = 0
}
{ prev = FILENAME }
{
    line = $0
    # Rule 1: collect the header of each CREATE FUNCTION up to its body.
    if (line ~ /CREATE (OR REPLACE )?FUNCTION/) { header = line; hline = FNR; next_is_header = 1 }
    else if (next_is_header) header = header "\n" line
    if (next_is_header && line ~ /^[ \t]*(AS|RETURN|BEGIN ATOMIC)([ \t]|$)/) {
        next_is_header = 0
        if (header ~ /LANGUAGE plpgsql/ && header ~ /-- names qualified/)
            qualified = 1
        else if (header ~ /LANGUAGE plpgsql/ && header !~ /SET search_path = pg_catalog, pg_temp/)
            failat(hline, "a PL/pgSQL function without SET search_path = pg_catalog, pg_temp")
        if (header ~ /LANGUAGE sql/ && line ~ /^[ \t]*AS([ \t]|$)/)
            failat(hline, "an SQL function without a standard body (RETURN, BEGIN ATOMIC)")
    }
    if (line ~ /FROM CURRENT/) fail("SET ... FROM CURRENT: write SET search_path = pg_catalog, pg_temp")
    if (line ~ /(CREATE|COMMENT ON) OPERATOR / && line !~ /OPERATOR @extschema@\./)
        fail("an operator without its schema, @extschema@.")
    # Rule 2: the code of the line, without comments and string literals
    # (a literal may span lines; a relation named in one must be qualified).
    code = ""
    i = 1
    n = length(line)
    while (i <= n) {
        c = substr(line, i, 1)
        if (instr) {
            if (c == "\047") {
                if (substr(line, i + 1, 1) == "\047") { lit = lit c; i += 2; continue }
                instr = 0
                if (lit ~ /^snowflake_sql_(bound|counter|config)$/)
                    fail("the relation \047" lit "\047 without its schema, @extschema@.")
                code = code " "
            } else lit = lit c
            i++
            continue
        }
        if (c == "-" && substr(line, i + 1, 1) == "-") break
        if (c == "\047") { instr = 1; lit = ""; i++; continue }
        code = code c
        i++
    }
    # Rule 1, a "-- names qualified" body (up to the line ending it, $body$).
    if (qualified && line ~ /^[ \t]*\$body\$;?[ \t]*$/ && seen_body) { qualified = 0; seen_body = 0 }
    else if (qualified && line ~ /\$body\$/) seen_body = 1
    else if (qualified && seen_body) {
        q = code
        # An operator or an assignment is replaced by a comma, which no
        # operator check matches and which parts the name before it from a
        # parenthesis after it (x := (y), 1::bigint OPERATOR(pg_catalog.<<) (z)).
        gsub(/OPERATOR\(pg_catalog\.[^)]*\)/, " , ", q)
        gsub(/::/, " ", q)
        gsub(/:=/, " , ", q)        # PL/pgSQL assignment, not an operator
        gsub(/@extschema@/, "x", q)
        gsub(/%[sIL]/, " ", q)      # format() placeholders of the bake
        if (q ~ /[-+*\/<>=!~^&|#%@?]/)
            fail("an operator not written OPERATOR(pg_catalog.op) in a \"-- names qualified\" body")
        r = q
        while (match(r, /[A-Za-z_][A-Za-z0-9_.]*[ \t]*\(/)) {
            f = substr(r, RSTART, RLENGTH)
            r = substr(r, RSTART + RLENGTH)
            sub(/[ \t]*\($/, "", f)
            if (f !~ /\./ && toupper(f) !~ /^(COALESCE|GREATEST|LEAST|NULLIF|CASE|WHEN|THEN|ELSE|AND|OR|NOT|RETURN|IN)$/)
                fail("the function \"" f "\" without its schema in a \"-- names qualified\" body")
        }
    }
    rest = code
    while (match(rest, /[A-Za-z0-9_.@]*snowflake_[A-Za-z0-9_]*[.]?/)) {
        w = substr(rest, RSTART, RLENGTH)
        before = substr(rest, 1, RSTART - 1)
        rest = substr(rest, RSTART + RLENGTH)
        if (w ~ /^@extschema@\.snowflake_[A-Za-z0-9_]*$/) continue
        if (w ~ /^snowflake_[A-Za-z0-9_]*\.$/) continue            # function.parameter
        if (w ~ /^snowflake_[A-Za-z0-9_]*$/ && before ~ /TRIGGER[ \t]+$/) continue
        fail("\"" w "\" without its schema, @extschema@.")
    }
}
END { unended(); exit bad }
' "$@"
