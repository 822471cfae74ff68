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

-- ---- Handovers: a pair a node left is not handed out before its
-- retired_until plus one second.
SELECT * FROM snowflake_registry_claim('node-a');
SELECT * FROM snowflake_registry_claim('node-b');
-- node-a moves off 0/0; its ids under it carry times up to 10 s from now.
SELECT snowflake_registry_retire('node-a', 0, 0, now() + interval '10 s');
SELECT node_key, datacenter_id, worker_id FROM snowflake_registry ORDER BY 1;
SELECT datacenter_id, worker_id, node_key, retired_until - retired_at = interval '10 s' AS until_kept
FROM snowflake_registry_retired;
-- Another node asks for 0/0: it gets another pair, also as its held one.
SELECT * FROM snowflake_registry_claim('node-c');
SELECT * FROM snowflake_registry_renew('node-d', 5, 5, 0, 0);
-- The node that retired it may take it back at once.
SELECT * FROM snowflake_registry_renew('node-a', 5, 5, 0, 0);
SELECT count(*) AS retired_rows FROM snowflake_registry_retired;
-- Once retired_until (plus the margin) has passed, the pair is free again.
SELECT snowflake_registry_retire('node-a', 0, 0, now() - interval '2 s');
SELECT * FROM snowflake_registry_renew('node-e', 5, 5, 0, 0);
SELECT count(*) AS retired_rows FROM snowflake_registry_retired;
-- Reported twice (or by two nodes): the later time stands, counted at most
-- 10 minutes from now (no node's ids under a registry's pair run further).
SELECT snowflake_registry_retire('node-x', 9, 9, now() + interval '5 minutes');
SELECT snowflake_registry_retire('node-y', 9, 9, now() + interval '1 minute');
SELECT node_key, retired_until > now() + interval '4 minutes' AS latest
FROM snowflake_registry_retired WHERE (datacenter_id, worker_id) = (9, 9);
SELECT snowflake_registry_retire('node-y', 9, 9, '9999-01-01');
SELECT node_key, retired_until BETWEEN now() + interval '9 minutes' AND now() + interval '10 minutes' AS capped
FROM snowflake_registry_retired WHERE (datacenter_id, worker_id) = (9, 9);
-- Bad arguments.
SELECT snowflake_registry_retire('', 1, 1, now());
SELECT snowflake_registry_retire('k', -1, 1, now());
SELECT snowflake_registry_retire('k', 1, 1, 'infinity');
SELECT snowflake_registry_retire('k', 1, 1, NULL);

-- ---- Configured nodes reserve their pairs: claims never hand them out.
TRUNCATE snowflake_registry, snowflake_registry_retired;
SELECT * FROM snowflake_registry_reserve('1111:conf-a:5432', 5, 5, 0, 0, 1);
SELECT * FROM snowflake_registry_claim('node-a');
SELECT * FROM snowflake_registry_renew('node-b', 5, 5, 0, 0);
SELECT node_key, datacenter_id, worker_id, kind, timeline FROM snowflake_registry ORDER BY 2, 3;
-- A reservation renewed keeps its pair; a node that moves takes its row along.
SELECT * FROM snowflake_registry_reserve('1111:conf-a:5432', 5, 5, 0, 0, 1);
SELECT * FROM snowflake_registry_reserve('1111:conf-a:5432', 5, 5, 0, 7, 1);
SELECT node_key, datacenter_id, worker_id, kind FROM snowflake_registry ORDER BY 2, 3;
-- Had its report of leaving a pair not arrived, the pair it moved off is
-- retired until a time at or after all of its ids (its mark).
SELECT * FROM snowflake_registry_reserve('1111:conf-a:5432', 5, 5, 0, 8, 1, now() + interval '3 s');
SELECT datacenter_id, worker_id, node_key, retired_until - retired_at = interval '3 s' AS until_its_mark
FROM snowflake_registry_retired;
SELECT * FROM snowflake_registry_reserve('1111:conf-a:5432', 5, 5, 0, 7, 1);
DELETE FROM snowflake_registry_retired;
-- A pair another node holds is refused, naming it.
SELECT * FROM snowflake_registry_reserve('2222:conf-b:5432', 5, 5, 0, 1, 1);
SELECT * FROM snowflake_registry_reserve('2222:conf-b:5432', 5, 5, 0, 7, 1);
-- A pair another node retired: reserved, with the time before which the
-- node issues no id under it.
SELECT snowflake_registry_retire('1111:conf-a:5432', 0, 7, now() + interval '5 s');
SELECT retired_until > now() + interval '4 s' AS until_told, retired_by, refused
FROM snowflake_registry_reserve('2222:conf-b:5432', 5, 5, 0, 7, 1);
-- A promoted standby (same system identifier, later timeline) takes its
-- old primary's pair over, held back until the old primary's last
-- confirmation ends (the 1.5 signature reports a lease of 597 s); the old
-- primary is refused from then on.
SELECT retired_until IS NOT NULL AS retired, retired_by, refused
FROM snowflake_registry_reserve('2222:standby-b:5432', 5, 5, 0, 7, 2);
SELECT refused FROM snowflake_registry_reserve('2222:conf-b:5432', 5, 5, 0, 7, 1);
SELECT node_key, timeline FROM snowflake_registry WHERE (datacenter_id, worker_id) = (0, 7);
-- A holder silent for 10 minutes gives way.
UPDATE snowflake_registry SET last_seen = now() - interval '11 minutes' WHERE node_key = '2222:standby-b:5432';
SELECT refused FROM snowflake_registry_reserve('3333:conf-c:5432', 5, 5, 0, 7, 1);
SELECT node_key FROM snowflake_registry WHERE (datacenter_id, worker_id) = (0, 7);
-- Bad arguments, and other widths.
SELECT * FROM snowflake_registry_reserve('k', 5, 5, 32, 0);
SELECT * FROM snowflake_registry_reserve('k', 5, 5, NULL, 0);
SELECT * FROM snowflake_registry_reserve('', 5, 5, 0, 0);
SELECT * FROM snowflake_registry_reserve('k', 4, 6, 0, 0);

-- ---- Pairs set aside by hand, for configured nodes that do not ask.
TRUNCATE snowflake_registry, snowflake_registry_retired;
SELECT snowflake_registry_reserve(0, 0, 'db-7, configured by hand');
SELECT snowflake_registry_reserve(0, 0, 'db-7 (moved to rack 3)');
SELECT * FROM snowflake_registry_claim('node-a');
SELECT node_key, datacenter_id, worker_id, kind, note FROM snowflake_registry ORDER BY 2, 3;
SELECT snowflake_registry_reserve(0, 1, 'taken');
-- Released at once; then claims may have it.
SELECT snowflake_registry_release('reserved:0/0');
SELECT * FROM snowflake_registry_claim('node-b');
-- A configured node that reserves a pair set aside by hand is refused: only
-- the registry's owner gives it to a node, and then the node reserves it.
SELECT snowflake_registry_reserve(0, 5, 'for conf-d');
SELECT * FROM snowflake_registry_reserve('4444:conf-d:5432', 5, 5, 0, 5, 1);
SELECT node_key, kind, note FROM snowflake_registry WHERE (datacenter_id, worker_id) = (0, 5);
SELECT snowflake_registry_assign(0, 5, '4444:conf-d:5432');
SELECT * FROM snowflake_registry_reserve('4444:conf-d:5432', 5, 5, 0, 5, 1);
SELECT node_key, kind, note FROM snowflake_registry WHERE (datacenter_id, worker_id) = (0, 5);
-- Only a pair set aside by hand, to a node that holds no other.
\set VERBOSITY default
SELECT snowflake_registry_assign(0, 5, '5555:conf-e:5432');
SELECT snowflake_registry_assign(0, 9, '5555:conf-e:5432');
SELECT snowflake_registry_reserve(0, 9, 'for conf-d too');
SELECT snowflake_registry_assign(0, 9, '4444:conf-d:5432');
SELECT snowflake_registry_assign(0, 9, 'reserved:0/9');
\set VERBOSITY terse
SELECT snowflake_registry_reserve(-1, 0, 'x');

-- Not for PUBLIC.
SELECT has_function_privilege('public', 'snowflake_registry_retire(text, integer, integer, timestamptz)', 'EXECUTE') AS public_may_retire,
       has_function_privilege('public', 'snowflake_registry_reserve(text, integer, integer, integer, integer, integer, timestamptz)', 'EXECUTE') AS public_may_reserve,
       has_function_privilege('public', 'snowflake_registry_reserve(integer, integer, text)', 'EXECUTE') AS public_may_set_aside,
       has_table_privilege('public', 'snowflake_registry_retired', 'SELECT') AS public_may_read_retired;
TRUNCATE snowflake_registry, snowflake_registry_retired;

-- A node's rows are its own: every call in its name carries its secret
-- (snowflake.node_secret), and the registry keeps the SHA-256 of it.  The
-- registrar login alone, knowing node keys but not secrets, can neither
-- evict a live holder nor take a pair over.
CREATE ROLE regress_sf_registrar2;
\set registrar_functions 'snowflake_registry_claim(text, integer, integer, text), snowflake_registry_renew(text, integer, integer, integer, integer, text), snowflake_registry_retire(text, integer, integer, timestamptz, text), snowflake_registry_reserve(text, integer, integer, integer, integer, integer, timestamptz, text, interval), snowflake_registry_claim(text, integer, integer), snowflake_registry_renew(text, integer, integer, integer, integer), snowflake_registry_retire(text, integer, integer, timestamptz), snowflake_registry_reserve(text, integer, integer, integer, integer, integer, timestamptz)'
GRANT EXECUTE ON FUNCTION :registrar_functions TO regress_sf_registrar2;
SET ROLE regress_sf_registrar2;
\set secret_a '''aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'''
\set secret_x '''xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'''
SELECT * FROM snowflake_registry_claim('1111:host-a:5432', 5, 5, :secret_a);
-- The holder renews; anyone else in its name is refused, with or without a
-- secret, and so is a retirement that would free its pair early.
SELECT * FROM snowflake_registry_renew('1111:host-a:5432', 5, 5, 0, 0, :secret_a);
SELECT * FROM snowflake_registry_renew('1111:host-a:5432', 5, 5, 0, 0, :secret_x);
SELECT * FROM snowflake_registry_renew('1111:host-a:5432', 5, 5, 0, 0);
SELECT * FROM snowflake_registry_claim('1111:host-a:5432');
SELECT snowflake_registry_retire('1111:host-a:5432', 0, 0, now() - interval '1 hour', :secret_x);
SELECT snowflake_registry_retire('1111:host-a:5432', 0, 0, now() - interval '1 hour');
SELECT * FROM snowflake_registry_reserve('1111:host-a:5432', 5, 5, 0, 7, 1, now(), :secret_x, interval '10 s');
-- A secret too short to be one.
SELECT * FROM snowflake_registry_claim('2222:host-b:5432', 5, 5, 'short');
RESET ROLE;
SELECT node_key, datacenter_id, worker_id, secret_hash = sha256(convert_to(:secret_a, 'UTF8')) AS hashed
FROM snowflake_registry;
SET ROLE regress_sf_registrar2;
-- The holder retires its pair: the pair is held back from every other node,
-- and from a caller in its name without its secret (who gets another pair);
-- the holder itself, with its secret, may come back to it at once.
SELECT snowflake_registry_retire('1111:host-a:5432', 0, 0, now() + interval '1 hour', :secret_a);
SELECT * FROM snowflake_registry_claim('2222:host-b:5432', 5, 5, :secret_x);
SELECT * FROM snowflake_registry_renew('1111:host-a:5432', 5, 5, 0, 0, :secret_x);
RESET ROLE;
DELETE FROM snowflake_registry WHERE node_key = '1111:host-a:5432';
SET ROLE regress_sf_registrar2;
SELECT * FROM snowflake_registry_renew('1111:host-a:5432', 5, 5, 0, 0, :secret_a);
-- The registrar login cannot release a claim: only the registry's owner can.
SELECT snowflake_registry_release('1111:host-a:5432');
-- Nor retire a pair another node holds.
SELECT snowflake_registry_retire('9999:host-z:5432', 0, 0, now() - interval '1 day', :secret_x);
RESET ROLE;
SELECT node_key, retired_until > now() AS held_back FROM snowflake_registry_retired;
TRUNCATE snowflake_registry, snowflake_registry_retired;
SET ROLE regress_sf_registrar2;
-- A configured node; a promoted standby of it (same system identifier, later
-- timeline) takes its pair over only with the secret it inherited.
SELECT * FROM snowflake_registry_reserve('3333:primary:5432', 5, 5, 1, 1, 1, now(), :secret_a, interval '10 s');
SELECT refused IS NOT NULL AS refused
FROM snowflake_registry_reserve('3333:standby:5432', 5, 5, 1, 1, 2, now(), :secret_x, interval '10 s');
SELECT refused IS NOT NULL AS refused
FROM snowflake_registry_reserve('3333:standby:5432', 5, 5, 1, 1, 2, now());
-- With the secret it takes the pair over, held back until the old
-- primary's confirmation ends (its 10 s lease plus 2 s of clock margin),
-- for the old primary may still run.
SELECT retired_until BETWEEN now() + interval '5 s' AND now() + interval '12 s' AS held_back,
       retired_by, refused
FROM snowflake_registry_reserve('3333:standby:5432', 5, 5, 1, 1, 2, now(), :secret_a, interval '10 s');
-- A lease the nodes cannot have.
SELECT * FROM snowflake_registry_reserve('3333:standby:5432', 5, 5, 1, 1, 2, now(), :secret_a, interval '0 s');
SELECT * FROM snowflake_registry_reserve('3333:standby:5432', 5, 5, 1, 1, 2, now(), :secret_a, interval '1 hour');
RESET ROLE;
SELECT node_key, kind, timeline FROM snowflake_registry;
SELECT node_key, retired_until > now() AS held_back FROM snowflake_registry_retired;
TRUNCATE snowflake_registry, snowflake_registry_retired;
-- The registrar login acts on its own key's rows and nothing else: with
-- only its grants, under a key of its own, it cannot take a pair set aside
-- by hand, retire it or a configured node's pair (which would hold the
-- node's ids back), nor give a pair to a node; a pair nobody holds it may
-- hold back for 10 minutes at most.
SELECT snowflake_registry_reserve(0, 20, 'db-9, configured by hand');
SET ROLE regress_sf_registrar2;
SELECT * FROM snowflake_registry_reserve('3333:primary:5432', 5, 5, 0, 7, 1, now(), :secret_a, interval '10 s');
SELECT refused FROM snowflake_registry_reserve('evil:x:1', 5, 5, 0, 20, 1, NULL, :secret_x, interval '1 second');
\set VERBOSITY default
SELECT snowflake_registry_retire('evil:x:1', 0, 20, now(), :secret_x);
SELECT snowflake_registry_retire('evil:x:1', 0, 7, '9999-01-01', :secret_x);
SELECT snowflake_registry_retire('evil:x:1', 0, 7, '9999-01-01');
SELECT snowflake_registry_assign(0, 20, 'evil:x:1');
SELECT snowflake_registry_clear_hold_back(0, 7);
\set VERBOSITY terse
SELECT snowflake_registry_retire('evil:x:1', 0, 21, '9999-01-01', :secret_x);
SELECT * FROM snowflake_registry_renew('evil:y:1', 5, 5, 0, 20, :secret_x);
RESET ROLE;
SELECT node_key, datacenter_id, worker_id, kind FROM snowflake_registry ORDER BY 2, 3;
SELECT datacenter_id, worker_id, node_key,
       retired_until <= now() + interval '10 minutes' AS at_most_10_minutes
FROM snowflake_registry_retired;
-- The owner clears a mistaken hold-back: the pair is retired until
-- -infinity, which a reservation reports (the node drops its hold-back)
-- until a real retired_until replaces it.
SELECT snowflake_registry_clear_hold_back(0, 21) > now() AS cleared_a_time;
SELECT retired_until, node_key FROM snowflake_registry_retired
WHERE (datacenter_id, worker_id) = (0, 21);
SELECT * FROM snowflake_registry_reserve('6666:conf-f:5432', 5, 5, 0, 21, 1, now(), :secret_a,
                                         interval '10 s');
SELECT snowflake_registry_clear_hold_back(0, 22) AS nothing_to_clear;
SELECT snowflake_registry_retire('6666:conf-f:5432', 0, 21, now() + interval '5 s', :secret_a);
SELECT retired_until > now() AS held_back_again, node_key FROM snowflake_registry_retired
WHERE (datacenter_id, worker_id) = (0, 21);
SELECT snowflake_registry_clear_hold_back(NULL, 22);
TRUNCATE snowflake_registry, snowflake_registry_retired;
REVOKE ALL ON FUNCTION :registrar_functions FROM regress_sf_registrar2;
DROP ROLE regress_sf_registrar2;
