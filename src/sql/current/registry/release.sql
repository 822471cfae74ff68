-- Release: as in 1.4, and a pair set aside by hand is released at once.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_registry_release(node_key text)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn_key text := snowflake_registry_release.node_key;
    seen timestamptz;
BEGIN
    DELETE FROM @extschema@.snowflake_registry r
    WHERE r.node_key = fn_key
      AND (r.kind = 'reserved' OR r.last_seen <= now() - interval '10 minutes');
    IF FOUND THEN
        RETURN true;
    END IF;
    SELECT r.last_seen INTO seen FROM @extschema@.snowflake_registry r WHERE r.node_key = fn_key;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    RAISE EXCEPTION 'the snowflake registry claim of node % was renewed less than 10 minutes ago',
                    fn_key
        USING ERRCODE = '55006',
              DETAIL = format('It was last renewed %s s ago. A running node renews its claim '
                              'every minute; releasing the claim of a node that still issues '
                              'ids lets another node take its pair.',
                              floor(extract(epoch FROM now() - seen))),
              HINT = 'Stop the node for good first (see "Retiring a node" in the snowflake '
                     'documentation, docs/operations.md); its claim can be released once it has '
                     'not been renewed for 10 minutes.';
END
$$;
COMMENT ON FUNCTION @extschema@.snowflake_registry_release(text) IS
    'release the claim of a retired node (refused while it was renewed in the last 10 minutes)';
REVOKE ALL ON FUNCTION @extschema@.snowflake_registry_release(text) FROM PUBLIC;
