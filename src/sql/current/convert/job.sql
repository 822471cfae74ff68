-- What snowflake_convert_column knows of one conversion, handed from step to
-- step: the call, the column and its values' source, the chain of columns
-- that reference it (w_*: as (table, column), in the order found; w_widen:
-- its type changes; w_cons: the foreign keys of the chain), re-keying's
-- identity and plan, the statements (kinds: what each is, where it is not
-- simply run: 'map', 'ranges:<relid>', 'whole:<relid>', 'fk'), and the
-- progress of the run.
CREATE TYPE @extschema@._snowflake_convert_job AS (
    rel oid,
    col name,
    dry_run boolean,
    drop_sequence boolean,
    tab text,                   -- the table, qualified and quoted
    attnum int2,
    coltype oid,
    typename text,
    col_identity "char",
    default_expr text,
    source text,                -- identity, serial, nextval or snowflake
    seq oid,
    seq_name text,
    drop_seq boolean,
    kept_detail text,
    next_id bigint,             -- an id taken before the checks: every later one is above it
    rekey boolean,
    tcol name,
    tcx text,                   -- the time column as a timestamptz expression
    dc integer,                 -- this node's identity, layout and history
    worker integer,
    since timestamptz,
    seq_bits integer,
    node_width integer,         -- datacenter_bits + worker_bits
    epoch timestamptz,
    bound bigint,               -- snowflake_min_id(identity_since): keys below it get new ids
    w_rel oid[],
    w_col name[],
    w_widen boolean[],
    w_why text[],
    w_name text[],
    w_cons oid[],
    keys text,                  -- the query of old key -> new key
    nrows bigint,               -- keys to re-key
    min_t timestamptz,
    max_t timestamptz,
    plan text,                  -- what the re-key does, said in a NOTICE
    stmts text[],
    kinds text[],
    changed bigint,             -- keys that change (the others are their new key already)
    spilled bigint,
    max_spill bigint,
    skip_updates boolean,
    bounds bigint[],            -- the ranges of old keys the updates run in: [b1, b2), [b2, b3), ...
    units bigint,               -- progress: (UPDATE statement, range of keys) pairs, all and done
    units_done bigint,
    done_rows bigint,
    t0 timestamptz,
    progress boolean
);
COMMENT ON TYPE @extschema@._snowflake_convert_job IS
    'snowflake_convert_column, internal: one conversion, handed from step to step';
