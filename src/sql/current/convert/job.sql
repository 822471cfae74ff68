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
    tz text,                    -- the time zone a timestamp (without time zone) column is read in; NULL for timestamptz
    tcx text,                   -- the time column as a timestamptz expression
    late_ids boolean,           -- late_rows => 'nextval': rows with no free time get ids from snowflake_nextval()
    map_table text,             -- the table of old and new keys to keep (qualified and quoted), or NULL
    dc integer,                 -- this node's identity, layout and history
    worker integer,
    since timestamptz,
    seq_bits integer,
    node_width integer,         -- datacenter_bits + worker_bits
    epoch timestamptz,
    lifetime_end timestamptz,
    free_until timestamptz,     -- times before it are free for new keys: identity_since, or -infinity (none)
    bound bigint,               -- keys at or above it are kept: snowflake_min_id(identity_since), or next_id
    w_rel oid[],
    w_col name[],
    w_widen boolean[],
    w_why text[],
    w_name text[],
    w_cons oid[],
    keys text,                  -- the query of old key -> new key
    nrows bigint,               -- keys to re-key
    nlate bigint,               -- of them, rows with no free time: ids from snowflake_nextval()
    min_t timestamptz,
    max_t timestamptz,
    plan text,                  -- what the re-key does, said in a NOTICE
    stmts text[],
    kinds text[],
    changed bigint,             -- keys that change (the others are their new key already)
    max_shift interval,         -- the largest distance of a late row's new id from its time
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
