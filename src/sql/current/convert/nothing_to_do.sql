-- Step 5: true, with a NOTICE that says why, when there is nothing to do.
CREATE OR REPLACE FUNCTION @extschema@._snowflake_convert_nothing_to_do(job @extschema@._snowflake_convert_job)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $step$
DECLARE
    v_detail text;
BEGIN
    PERFORM @extschema@._snowflake_internal('_snowflake_convert_nothing_to_do');
    -- Nothing to do: already on snowflake ids, every column already bigint.
    -- Said plainly, with why, since the function then returns no statement.
    IF job.source = 'snowflake' AND NOT true = ANY (job.w_widen) AND NOT job.rekey THEN
        v_detail := format('Its default is %s, and %s bigint already. No statement was run.',
                           job.default_expr,
                           CASE WHEN cardinality(job.w_rel) = 1 THEN 'it is'
                                ELSE 'it and every column that references it are' END);
        IF job.drop_sequence THEN
            RAISE NOTICE 'nothing to do: column % of table % already uses snowflake ids',
                         quote_ident(job.col), job.tab
                USING DETAIL = v_detail,
                      HINT = 'drop_sequence drops the sequence that a conversion replaces. '
                             'Drop a sequence kept by an earlier conversion with DROP SEQUENCE.';
        ELSE
            RAISE NOTICE 'nothing to do: column % of table % already uses snowflake ids',
                         quote_ident(job.col), job.tab
                USING DETAIL = v_detail;
        END IF;
        RETURN true;
    END IF;
    RETURN false;
END
$step$;
COMMENT ON FUNCTION @extschema@._snowflake_convert_nothing_to_do(@extschema@._snowflake_convert_job) IS
    'snowflake_convert_column, internal: say so when there is nothing to do';
