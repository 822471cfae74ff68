-- The worker-id registry's SQL side (what a registry server runs): claims are
-- unique per pair and per node, stable for a node, released by hand, and an
-- exhausted space is an error that says so.
SELECT extversion FROM pg_extension WHERE extname = 'snowflake';

SELECT * FROM snowflake_registry_claim('node-a');
SELECT * FROM snowflake_registry_claim('node-b');
-- A node asking again (a restart) gets its claim back.
SELECT * FROM snowflake_registry_claim('node-a');
SELECT datacenter_id, worker_id, node_key FROM snowflake_registry ORDER BY 1, 2;

-- A 0/1-bit layout has two pairs: the third node is refused.
TRUNCATE snowflake_registry;
SELECT * FROM snowflake_registry_claim('tiny-1', 0, 1);
SELECT * FROM snowflake_registry_claim('tiny-2', 0, 1);
\set VERBOSITY default
SELECT * FROM snowflake_registry_claim('tiny-3', 0, 1);
\set VERBOSITY terse

-- Releasing a retired node frees its pair for the next claim.
SELECT snowflake_registry_release('tiny-1');
SELECT snowflake_registry_release('tiny-1');
SELECT * FROM snowflake_registry_claim('tiny-3', 0, 1);

-- Bad arguments.
SELECT * FROM snowflake_registry_claim('', 5, 5);
SELECT * FROM snowflake_registry_claim('x', 5, 28);
SELECT * FROM snowflake_registry_claim(NULL, 5, 5);

-- Not for PUBLIC: only roles granted access may claim.
SELECT has_function_privilege('public', 'snowflake_registry_claim(text, integer, integer)', 'EXECUTE') AS public_may_claim,
       has_table_privilege('public', 'snowflake_registry', 'SELECT') AS public_may_read;
TRUNCATE snowflake_registry;
