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
SELECT set_config('snowflake.worker_id', '3', false);

-- The prefix is reserved: typos are errors, not silent placeholders.
SET snowflake.typo = 1;
SET snowflake.worker = 1;

-- ALTER ROLE / ALTER DATABASE cannot pin another identity either.
ALTER ROLE CURRENT_USER SET snowflake.worker_id = 3;
ALTER DATABASE contrib_regression SET snowflake.worker_id = 3;
