-- Settings: visible, reserved prefix, and no session can change the node identity.
SELECT name, setting, context, vartype, min_val, max_val
FROM pg_settings WHERE name LIKE 'snowflake.%' ORDER BY name;

SHOW snowflake.worker_id;
SHOW snowflake.epoch;

-- sighup / postmaster contexts: a session cannot take another identity.
SET snowflake.worker_id = 3;
SET snowflake.datacenter_id = 1;
SET snowflake.epoch = '0';
SET snowflake.sequence_bits = 16;
SET snowflake.clock_backward_policy = 'error';
SET LOCAL snowflake.worker_id = 3;
SET snowflake.worker_id TO DEFAULT;
RESET snowflake.worker_id;
SET Snowflake.Worker_Id = 3;
BEGIN;
SET LOCAL snowflake.registry = '';
ROLLBACK;
-- set_config() gets PostgreSQL's message alone (it is no statement).
SELECT set_config('snowflake.worker_id', '3', false);
-- A setting that sessions may change is left to PostgreSQL.
SET snowflake.time_predicates = off;
RESET snowflake.time_predicates;

-- ALTER SYSTEM of an identity out of range names the range of the layout,
-- below -1 too (nothing is written).
ALTER SYSTEM SET snowflake.worker_id = -5;
ALTER SYSTEM SET snowflake.worker_id = 32;
ALTER SYSTEM SET snowflake.datacenter_id = -1;

-- The prefix is reserved: typos are errors, not silent placeholders.
SET snowflake.typo = 1;
SET snowflake.worker = 1;

-- ALTER ROLE / ALTER DATABASE cannot pin another identity either.
ALTER ROLE CURRENT_USER SET snowflake.worker_id = 3;
ALTER DATABASE contrib_regression SET snowflake.worker_id = 3;
ALTER ROLE CURRENT_USER SET snowflake.epoch = '0';
-- Their RESET does what PostgreSQL's does for its own parameter of the same
-- kind, autovacuum_naptime: it succeeds before PostgreSQL 19 (there is
-- nothing to remove), and 19 refuses it.
CREATE FUNCTION settings_reset(param text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('ALTER ROLE CURRENT_USER RESET %s', param);
    RETURN 'done';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ' ' || replace(SQLERRM, param, '*');
END $$;
SELECT settings_reset('snowflake.worker_id') = settings_reset('autovacuum_naptime') AS as_postgresql;
DROP FUNCTION settings_reset(text);
