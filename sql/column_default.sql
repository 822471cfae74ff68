-- A column default that calls snowflake_nextval() on a column too narrow for
-- its ids: a WARNING when the statement sets it up (the statement still
-- runs: a dump of such a table must restore), instead of an "out of range"
-- error at every insert later.
CREATE TABLE narrow_int (id integer PRIMARY KEY DEFAULT snowflake_nextval(), note text);
-- What the WARNING spares: every insert that takes the default fails.
INSERT INTO narrow_int (note) VALUES ('x');
CREATE TABLE narrow_small (id smallint DEFAULT snowflake_nextval());
CREATE TABLE narrow_float (id double precision DEFAULT snowflake_nextval());
CREATE TABLE narrow_real (id real DEFAULT snowflake_nextval());
CREATE TABLE narrow_oid (id oid DEFAULT snowflake_nextval());
CREATE TABLE narrow_numeric (id numeric(18) DEFAULT snowflake_nextval());
CREATE DOMAIN small_key AS integer;
CREATE TABLE narrow_domain (id small_key DEFAULT snowflake_nextval());
-- However it is written: qualified, cast, inside an expression.
CREATE TABLE narrow_written (
    a integer DEFAULT public.snowflake_nextval(),
    b integer DEFAULT snowflake_nextval()::integer,
    c integer DEFAULT coalesce(NULL, snowflake_nextval()));
-- ALTER TABLE: a new column, and a new default on an existing column.
CREATE TABLE later (id integer PRIMARY KEY, other integer);
ALTER TABLE later ADD COLUMN extra integer DEFAULT snowflake_nextval();
ALTER TABLE later ALTER COLUMN other SET DEFAULT snowflake_nextval();
ALTER TABLE later ALTER COLUMN id SET DEFAULT snowflake_nextval(), ALTER COLUMN id DROP DEFAULT;

-- Columns that hold every id: nothing said.
CREATE TABLE wide (
    a bigint DEFAULT snowflake_nextval(),
    b numeric DEFAULT snowflake_nextval(),
    c numeric(19) DEFAULT snowflake_nextval(),
    d text DEFAULT snowflake_nextval());
ALTER TABLE later ADD COLUMN wide_too bigint DEFAULT snowflake_nextval();
-- Widened and given the default in one statement: the new type counts.
ALTER TABLE later ALTER COLUMN other TYPE bigint, ALTER COLUMN other SET DEFAULT snowflake_nextval();
-- (and narrowed in one: the new type counts too)
ALTER TABLE later ALTER COLUMN other TYPE integer, ALTER COLUMN other SET DEFAULT snowflake_nextval();
INSERT INTO wide DEFAULT VALUES;
SELECT a < b AND b < c AND c < d::bigint AS each_holds_its_id FROM wide;

-- Defaults that are not snowflake_nextval(): nothing said, whatever the type.
CREATE SEQUENCE s;
CREATE TABLE other_defaults (a integer DEFAULT nextval('s'), b smallint DEFAULT 0);
-- A function of that name that is not snowflake's: nothing said.
CREATE SCHEMA mine;
CREATE FUNCTION mine.snowflake_nextval() RETURNS integer LANGUAGE sql AS 'SELECT 1';
CREATE TABLE not_ours (id integer DEFAULT mine.snowflake_nextval());
-- A type that does not exist is the statement's own error.
CREATE TABLE no_type (id no_such_type DEFAULT snowflake_nextval());

DROP TABLE narrow_int, narrow_small, narrow_float, narrow_real, narrow_oid, narrow_numeric,
    narrow_domain, narrow_written, later, wide, other_defaults, not_ours;
DROP DOMAIN small_key;
DROP SEQUENCE s;
DROP SCHEMA mine CASCADE;
