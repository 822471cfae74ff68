-- ===========================================================================
-- State
-- ===========================================================================

-- The node's configuration: one row, written by snowflake_configure (its
-- owner only).  pg_dump keeps it (it is the extension's configuration table).
CREATE TABLE IF NOT EXISTS @extschema@.snowflake_sql_config (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    epoch_ms bigint NOT NULL,
    datacenter_bits integer NOT NULL,
    worker_bits integer NOT NULL,
    sequence_bits integer NOT NULL,
    datacenter_id integer NOT NULL,
    worker_id integer NOT NULL,
    clock_backward_policy text NOT NULL,
    max_clock_backward_ms integer NOT NULL,
    configured_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    configured_by name NOT NULL DEFAULT CURRENT_USER
);
COMMENT ON TABLE @extschema@.snowflake_sql_config IS
    'snowflake_sql: this database''s node identity, layout and clock policy (set by snowflake_configure)';

-- An install of 1.5 has snowflake_sql_settings() baked as a ROW(...) cast to
-- this table's row type, and PostgreSQL (15.20, 17.12 and later minor
-- releases) refuses to add a column with a default to a table whose row type
-- a function body builds that way ("cannot alter table ... because function
-- ... uses its row type").  Until 043_bake_now.sql bakes it again, it reads
-- the table instead.
DO $do$
BEGIN
    IF pg_catalog.to_regprocedure('@extschema@.snowflake_sql_settings()') IS NOT NULL THEN
        CREATE OR REPLACE FUNCTION @extschema@.snowflake_sql_settings()
        RETURNS @extschema@.snowflake_sql_config
        LANGUAGE sql STABLE PARALLEL SAFE
        RETURN (SELECT c FROM @extschema@.snowflake_sql_config c);
    END IF;
END
$do$;

-- The identity history (039_identity_history.sql writes it), as the C
-- extension's snowflake_status shows it; an install of 1.5 gets the columns
-- empty (unknown).
ALTER TABLE @extschema@.snowflake_sql_config
    ADD COLUMN IF NOT EXISTS identity_since timestamptz,
    ADD COLUMN IF NOT EXISTS retired_identity text,
    ADD COLUMN IF NOT EXISTS retired_since timestamptz,
    ADD COLUMN IF NOT EXISTS retired_until timestamptz,
    ADD COLUMN IF NOT EXISTS identities_complete boolean NOT NULL DEFAULT false;

-- The tag this database writes into its durable mark (011_sequences.sql), at
-- random, so that a mark another database wrote (logical replication of
-- sequences) is told from its own.  It goes where the row goes: a restore, a
-- standby and pg_upgrade keep it; replication does not write the row
-- (044_not_replicated.sql).  A new identity draws a new one
-- (039_identity_history.sql), so a copy of the database stops sharing it;
-- nothing else changes it (041_config_check.sql).
ALTER TABLE @extschema@.snowflake_sql_config
    ADD COLUMN IF NOT EXISTS mark_tag integer NOT NULL
        DEFAULT (1 OPERATOR(pg_catalog.+) pg_catalog.floor(pg_catalog.random() OPERATOR(pg_catalog.*) 65535))::integer;
