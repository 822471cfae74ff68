CREATE OR REPLACE FUNCTION @extschema@.snowflake_cluster_check(
    OUT node_name text,
    OUT node_port integer,
    OUT group_id integer,
    OUT datacenter_id integer,
    OUT worker_id integer,
    OUT epoch timestamptz,
    OUT layout text,
    OUT extension_version text,
    OUT problem text,
    OUT detail text)
RETURNS SETOF record
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $check$
DECLARE
    v_schema text;
    v_version text;
    v_group integer;
    v_ref record;
    v_ref_ok boolean := true;
    v_version_cmd text;
    v_status_cmd text;
    n record;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION 'snowflake_cluster_check() needs Citus'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'It asks the nodes of the Citus cluster of this database, and Citus '
                           'is not installed in this database.',
                  HINT = 'On a server without Citus, SELECT * FROM snowflake_status shows its identity.';
    END IF;
    EXECUTE 'SELECT groupid FROM pg_catalog.pg_dist_local_group' INTO v_group;
    IF v_group IS DISTINCT FROM 0 THEN
        RAISE EXCEPTION 'snowflake_cluster_check() runs on the Citus coordinator'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('This node is in Citus group %s; the coordinator is group 0.', v_group);
    END IF;
    SELECT quote_ident(ns.nspname), e.extversion INTO v_schema, v_version
    FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace ns ON ns.oid = e.extnamespace
    WHERE e.extname = 'snowflake';

    -- What the coordinator runs with: the reference for the other nodes.
    BEGIN
        EXECUTE format('SELECT (extract(epoch FROM s.epoch) * 1000)::bigint AS epoch_ms, '
                       's.datacenter_bits, s.worker_bits, s.sequence_bits FROM %s.snowflake_status s',
                       v_schema) INTO v_ref;
    EXCEPTION WHEN OTHERS THEN
        v_ref_ok := false;  -- its own row says why (status_failed)
    END;

    -- Two commands on every node: the version (which cannot fail where the
    -- node answers) and the status (which fails where snowflake is missing
    -- or not preloaded).  Both name everything with its schema.  The status
    -- carries its whole row too: a node at an older version has fewer
    -- columns (no identity history before 1.5), and still answers.
    v_version_cmd := 'SELECT COALESCE((SELECT e.extversion FROM pg_catalog.pg_extension e '
                     'WHERE e.extname OPERATOR(pg_catalog.=) ''snowflake''), '''')';
    v_status_cmd := format('SELECT pg_catalog.json_build_object(''datacenter_id'', s.datacenter_id, '
                           '''worker_id'', s.worker_id, '
                           '''epoch_ms'', (extract(epoch FROM s.epoch) OPERATOR(pg_catalog.*) 1000)::bigint, '
                           '''datacenter_bits'', s.datacenter_bits, ''worker_bits'', s.worker_bits, '
                           '''sequence_bits'', s.sequence_bits, '
                           '''row'', pg_catalog.to_json(s))::text FROM %s.snowflake_status s',
                           v_schema);

    FOR n IN EXECUTE $q$
        WITH v AS (SELECT * FROM pg_catalog.run_command_on_all_nodes($1)),
             s AS (SELECT * FROM pg_catalog.run_command_on_all_nodes($2)),
             nodes AS (
                SELECT coalesce(d.nodename, current_setting('citus.local_hostname')) AS node_name,
                       coalesce(d.nodeport, current_setting('port')::integer) AS node_port,
                       coalesce(d.groupid, 0) AS group_id,
                       v.success AS reached,
                       CASE WHEN v.success THEN nullif(v.result, '') END AS version,
                       CASE WHEN NOT v.success THEN v.result END AS unreachable_error,
                       s.success AS status_ok,
                       CASE WHEN s.success THEN s.result::json END AS status,
                       CASE WHEN NOT s.success THEN s.result END AS status_error
                FROM v JOIN s USING (nodeid)
                LEFT JOIN pg_catalog.pg_dist_node d ON d.nodeid = v.nodeid),
             parsed AS (
                SELECT nodes.*,
                       (status->>'datacenter_id')::integer AS dc,
                       (status->>'worker_id')::integer AS worker,
                       (status->>'epoch_ms')::bigint AS epoch_ms,
                       (status->>'datacenter_bits')::integer AS dc_bits,
                       (status->>'worker_bits')::integer AS w_bits,
                       (status->>'sequence_bits')::integer AS s_bits,
                       (status->'row'->>'identity_since')::timestamptz AS since,
                       status->'row'->>'retired_identity' AS retired,
                       (status->'row'->>'retired_until')::timestamptz AS retired_until,
                       (status->'row'->>'identity_not_before')::timestamptz AS not_before,
                       (status->'row')::jsonb ? 'identity_since' AS has_history
                FROM nodes)
        SELECT p.*,
               (SELECT string_agg(format('%s:%s', o.node_name, o.node_port), ', '
                                  ORDER BY o.node_name, o.node_port)
                FROM parsed o
                WHERE o.worker IS NOT NULL AND o.dc = p.dc AND o.worker = p.worker
                  AND (o.node_name, o.node_port) IS DISTINCT FROM (p.node_name, p.node_port)) AS same_identity,
               -- Another node retired this node's identity: its ids under it
               -- carry times up to that node's retired_until, so this node's
               -- must all come later (plus the one-second clock-skew margin),
               -- unless its registry told it so and it holds its ids back
               -- until then (identity_not_before, 1.6): they are all dated
               -- after it.
               (SELECT string_agg(format('%s:%s retired it until %s', o.node_name, o.node_port,
                                         o.retired_until), '; '
                                  ORDER BY o.node_name, o.node_port)
                FROM parsed o
                WHERE p.worker IS NOT NULL AND p.has_history
                  AND o.retired = format('%s/%s', p.dc, p.worker)
                  AND (o.node_name, o.node_port) IS DISTINCT FROM (p.node_name, p.node_port)
                  AND (p.since IS NULL OR p.since <= o.retired_until + interval '1 second')
                  AND (p.not_before IS NULL OR p.not_before < o.retired_until)) AS retired_elsewhere
        FROM parsed p
        ORDER BY p.group_id, p.node_name, p.node_port
    $q$ USING v_version_cmd, v_status_cmd
    LOOP
        node_name := n.node_name;
        node_port := n.node_port;
        group_id := n.group_id;
        datacenter_id := CASE WHEN n.worker IS NOT NULL THEN n.dc END;
        worker_id := n.worker;
        epoch := to_timestamp(n.epoch_ms / 1000.0);
        layout := CASE WHEN n.dc_bits IS NOT NULL
                       THEN format('%s/%s/%s', n.dc_bits, n.w_bits, n.s_bits) END;
        extension_version := n.version;
        problem := NULL;
        detail := NULL;
        IF NOT n.reached THEN
            problem := 'unreachable';
            detail := n.unreachable_error;
            RETURN NEXT;
            CONTINUE;
        END IF;
        IF n.version IS NULL THEN
            problem := 'extension_missing';
            detail := 'The snowflake extension is not installed in this database on the node.';
            RETURN NEXT;
            CONTINUE;
        END IF;
        IF n.version IS DISTINCT FROM v_version THEN
            problem := 'version_mismatch';
            detail := format('The node has snowflake %s, the coordinator %s.', n.version, v_version);
            RETURN NEXT;
        END IF;
        IF NOT n.status_ok THEN
            problem := 'status_failed';
            detail := n.status_error;
            RETURN NEXT;
            CONTINUE;
        END IF;
        IF n.worker IS NULL THEN
            problem := 'identity_missing';
            detail := 'The node has no (datacenter_id, worker_id): snowflake_nextval() fails there, '
                      'including for INSERT ... SELECT and ALTER TABLE that Citus runs on it.';
            RETURN NEXT;
        ELSIF n.same_identity IS NOT NULL THEN
            problem := 'identity_duplicate';
            detail := format('datacenter_id %s, worker_id %s is also the identity of %s.',
                             n.dc, n.worker, n.same_identity);
            RETURN NEXT;
        ELSIF n.retired_elsewhere IS NOT NULL THEN
            problem := 'identity_recently_retired';
            detail := format('datacenter_id %s, worker_id %s: %s; this node''s ids under it %s, '
                             'not after that time plus the one-second clock-skew margin, so they '
                             'could equal that node''s.',
                             n.dc, n.worker, n.retired_elsewhere,
                             CASE WHEN n.since IS NULL
                                  THEN 'start at an unknown time (identity_since is null)'
                                  ELSE format('start at %s', n.since) END);
            RETURN NEXT;
        END IF;
        IF v_ref_ok AND (n.dc_bits, n.w_bits, n.s_bits)
                        IS DISTINCT FROM (v_ref.datacenter_bits, v_ref.worker_bits, v_ref.sequence_bits) THEN
            problem := 'layout_mismatch';
            detail := format('The node has layout %s (datacenter/worker/sequence bits), the coordinator %s/%s/%s.',
                             layout, v_ref.datacenter_bits, v_ref.worker_bits, v_ref.sequence_bits);
            RETURN NEXT;
        END IF;
        IF v_ref_ok AND n.epoch_ms IS DISTINCT FROM v_ref.epoch_ms THEN
            problem := 'epoch_mismatch';
            detail := format('The node has epoch %s ms, the coordinator %s ms.', n.epoch_ms, v_ref.epoch_ms);
            RETURN NEXT;
        END IF;
        IF problem IS NULL THEN
            RETURN NEXT;
        END IF;
    END LOOP;
END
$check$;
COMMENT ON FUNCTION @extschema@.snowflake_cluster_check() IS
    'every node of the Citus cluster: its snowflake identity, layout, epoch and version, with the problems found (run on the coordinator)';
