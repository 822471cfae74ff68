-- The worker-id registry's SQL side (what a registry server runs): claims are
-- unique per pair and per node, stable for a node, renewed, recorded with
-- their widths, released by hand only once stale, and an exhausted space is an
-- error that says so.
SELECT string_to_array(extversion, '.')::int[] >= '{1,3}' AS at_least_1_3
FROM pg_extension WHERE extname = 'snowflake';

SELECT * FROM snowflake_registry_claim('node-a');
SELECT * FROM snowflake_registry_claim('node-b');
-- A node asking again (a restart) gets its claim back.
SELECT * FROM snowflake_registry_claim('node-a');
SELECT datacenter_id, worker_id, node_key, datacenter_bits, worker_bits,
       last_seen > now() - interval '1 minute' AS seen_recently
FROM snowflake_registry ORDER BY 1, 2;

-- Renewal (what a running node does every minute, with the pair it holds):
-- its claim, the same pair, and last_seen moves.
UPDATE snowflake_registry SET last_seen = now() - interval '1 hour' WHERE node_key = 'node-a';
SELECT * FROM snowflake_registry_renew('node-a', 5, 5, 0, 0);
SELECT node_key, last_seen > now() - interval '1 minute' AS renewed
FROM snowflake_registry WHERE node_key = 'node-a';
-- The registry's claim wins over whatever pair the node says it holds.
SELECT * FROM snowflake_registry_renew('node-a', 5, 5, 9, 9);
-- A claim the registry lost (restored from an old backup, released by
-- hand): the pair the node holds is recorded again while it is free ...
SELECT * FROM snowflake_registry_renew('node-c', 5, 5, 7, 3);
-- ... and a node whose pair another node holds now gets a free one.
SELECT * FROM snowflake_registry_renew('node-d', 5, 5, 7, 3);
-- A held pair outside the layout is never recorded.
SELECT * FROM snowflake_registry_renew('node-e', 5, 5, 32, 0);
SELECT datacenter_id, worker_id, node_key FROM snowflake_registry ORDER BY 1, 2;

-- Widths: every claim records them, and a claim under other widths is
-- refused (the same pair would be other node bits).
SELECT DISTINCT datacenter_bits, worker_bits FROM snowflake_registry;
\set VERBOSITY default
SELECT * FROM snowflake_registry_claim('node-x', 4, 6);
SELECT * FROM snowflake_registry_renew('node-a', 5, 6, 0, 0);
\set VERBOSITY terse
SELECT count(*) AS claims FROM snowflake_registry;

-- Stale claims are visible: a node that stopped renewing.
UPDATE snowflake_registry SET last_seen = now() - interval '11 minutes' WHERE node_key = 'node-b';
SELECT node_key, datacenter_id, worker_id
FROM snowflake_registry WHERE last_seen < now() - interval '10 minutes';
-- Release refuses a claim renewed in the last 10 minutes, and releases a
-- stale one.
SELECT snowflake_registry_release('node-a');
SELECT snowflake_registry_release('node-b');
SELECT snowflake_registry_release('node-b');
SELECT snowflake_registry_release('nobody');
-- The freed pair goes to the next new node.
SELECT * FROM snowflake_registry_claim('node-f');

-- A 0/1-bit layout has two pairs: the third node is refused.
TRUNCATE snowflake_registry;
SELECT * FROM snowflake_registry_claim('tiny-1', 0, 1);
SELECT * FROM snowflake_registry_claim('tiny-2', 0, 1);
\set VERBOSITY default
SELECT * FROM snowflake_registry_claim('tiny-3', 0, 1);
\set VERBOSITY terse

-- Releasing a retired node frees its pair for the next claim.
UPDATE snowflake_registry SET last_seen = now() - interval '1 day' WHERE node_key = 'tiny-1';
SELECT snowflake_registry_release('tiny-1');
SELECT snowflake_registry_release('tiny-1');
SELECT * FROM snowflake_registry_claim('tiny-3', 0, 1);

-- Bad arguments.
SELECT * FROM snowflake_registry_claim('', 5, 5);
SELECT * FROM snowflake_registry_claim('x', 5, 28);
SELECT * FROM snowflake_registry_claim(NULL, 5, 5);
SELECT * FROM snowflake_registry_claim('x', NULL, 5);
SELECT * FROM snowflake_registry_renew('x', 5, 5, 1, NULL);
SELECT * FROM snowflake_registry_renew('x', -1, 5, 1, 1);

-- Not for PUBLIC: only roles granted access may claim.
SELECT has_function_privilege('public', 'snowflake_registry_claim(text, integer, integer)', 'EXECUTE') AS public_may_claim,
       has_function_privilege('public', 'snowflake_registry_renew(text, integer, integer, integer, integer)', 'EXECUTE') AS public_may_renew,
       has_table_privilege('public', 'snowflake_registry', 'SELECT') AS public_may_read;
-- A registrar role needs EXECUTE on the functions and nothing on the table
-- (they are SECURITY DEFINER).
TRUNCATE snowflake_registry;
CREATE ROLE regress_sf_registrar;
GRANT EXECUTE ON FUNCTION snowflake_registry_claim(text, integer, integer) TO regress_sf_registrar;
SET ROLE regress_sf_registrar;
SELECT * FROM snowflake_registry_claim('node-role');
SELECT * FROM snowflake_registry_renew('node-role', 5, 5, 0, 0);
SELECT count(*) FROM snowflake_registry;
RESET ROLE;
GRANT EXECUTE ON FUNCTION snowflake_registry_renew(text, integer, integer, integer, integer) TO regress_sf_registrar;
SET ROLE regress_sf_registrar;
SELECT * FROM snowflake_registry_renew('node-role', 5, 5, 0, 0);
RESET ROLE;
REVOKE ALL ON FUNCTION snowflake_registry_claim(text, integer, integer) FROM regress_sf_registrar;
REVOKE ALL ON FUNCTION snowflake_registry_renew(text, integer, integer, integer, integer) FROM regress_sf_registrar;
DROP ROLE regress_sf_registrar;
TRUNCATE snowflake_registry;
