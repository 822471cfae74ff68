CREATE OR REPLACE FUNCTION @extschema@.snowflake_create_partitions(
    table_name regclass,
    start_time timestamptz,
    end_time timestamptz,
    step interval,
    time_zone text DEFAULT 'UTC',
    dry_run boolean DEFAULT false)
RETURNS SETOF text
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
SET TimeZone = 'UTC'
SET DateStyle = 'ISO, YMD'
SET IntervalStyle = 'postgres'
AS $create$
DECLARE
    max_partitions constant int := 1000;
    v_nsp text;                 -- the table's schema, quoted (pg_temp for a temporary table)
    v_relname name;
    v_tab text;                 -- the table, qualified and quoted
    v_months int;
    v_days int;
    v_time interval;
    v_fmt text;
    -- existing partitions: name, lower and upper id (NULL: MINVALUE/MAXVALUE)
    e_name text[] := ARRAY[]::text[];
    e_lo bigint[] := ARRAY[]::bigint[];
    e_hi bigint[] := ARRAY[]::bigint[];
    e_lo_min boolean[] := ARRAY[]::boolean[];
    e_hi_max boolean[] := ARRAY[]::boolean[];
    -- the partitions to create
    p_name text[] := ARRAY[]::text[];
    p_lo bigint[] := ARRAY[]::bigint[];
    p_hi bigint[] := ARRAY[]::bigint[];     -- NULL: MAXVALUE (past the lifetime)
    p_from timestamptz[] := ARRAY[]::timestamptz[];
    p_to timestamptz[] := ARRAY[]::timestamptz[];
    t_lo timestamptz;
    t_hi timestamptz;
    lo bigint;
    hi bigint;
    v_name text;
    v_stmt text;
    v_skip boolean;
    i int;
    j int;
BEGIN
    IF table_name IS NULL OR start_time IS NULL OR end_time IS NULL OR step IS NULL
       OR time_zone IS NULL OR dry_run IS NULL THEN
        RAISE EXCEPTION 'snowflake_create_partitions: % must not be NULL',
            CASE WHEN table_name IS NULL THEN 'table_name' WHEN start_time IS NULL THEN 'start_time'
                 WHEN end_time IS NULL THEN 'end_time' WHEN step IS NULL THEN 'step'
                 WHEN time_zone IS NULL THEN 'time_zone' ELSE 'dry_run' END
            USING ERRCODE = '22004';
    END IF;
    -- Calendar steps (days, months) follow this zone's calendar, for this
    -- function's run only (its SET TimeZone restores the caller's).
    PERFORM set_config('TimeZone', time_zone, true);
    IF NOT isfinite(start_time) OR NOT isfinite(end_time) THEN
        RAISE EXCEPTION 'snowflake_create_partitions: start_time and end_time must be finite'
            USING ERRCODE = '22008';
    END IF;
    IF start_time >= end_time THEN
        RAISE EXCEPTION 'snowflake_create_partitions: start_time (%) is not before end_time (%)',
                        start_time, end_time
            USING ERRCODE = '22023';
    END IF;
    IF step <= interval '0' THEN
        RAISE EXCEPTION 'snowflake_create_partitions: step must be positive, not %', step
            USING ERRCODE = '22023',
                  HINT = 'Give a step such as ''1 day'' or ''1 month''.';
    END IF;

    -- ------------------------------------------------------------ the table
    SELECT t.nsp, t.relname, t.tab INTO v_nsp, v_relname, v_tab
      FROM @extschema@._snowflake_partitioned_table(table_name) t;

    -- ------------------------------------------------- existing partitions
    SELECT coalesce(array_agg(e.name ORDER BY e.name COLLATE "C"), ARRAY[]::text[]),
           coalesce(array_agg(e.lo ORDER BY e.name COLLATE "C"), ARRAY[]::bigint[]),
           coalesce(array_agg(e.hi ORDER BY e.name COLLATE "C"), ARRAY[]::bigint[]),
           coalesce(array_agg(e.lo_min ORDER BY e.name COLLATE "C"), ARRAY[]::boolean[]),
           coalesce(array_agg(e.hi_max ORDER BY e.name COLLATE "C"), ARRAY[]::boolean[])
      INTO e_name, e_lo, e_hi, e_lo_min, e_hi_max
      FROM @extschema@._snowflake_partitions_of(table_name) e;

    -- ----------------------------------------------------- the new bounds
    v_months := (extract(year FROM step) * 12 + extract(month FROM step))::int;
    v_days := extract(day FROM step)::int;
    v_time := step - make_interval(months => v_months, days => v_days);
    v_fmt := CASE
        WHEN v_time = interval '0' AND v_days = 0 AND v_months % 12 = 0 THEN 'YYYY'
        WHEN v_time = interval '0' AND v_days = 0 THEN 'YYYY_MM'
        WHEN v_time = interval '0' THEN 'YYYY_MM_DD'
        WHEN extract(minute FROM v_time) = 0 AND extract(second FROM v_time) = 0 THEN 'YYYY_MM_DD_HH24'
        WHEN extract(second FROM v_time) = 0 THEN 'YYYY_MM_DD_HH24MI'
        WHEN extract(second FROM v_time) = trunc(extract(second FROM v_time)) THEN 'YYYY_MM_DD_HH24MISS'
        ELSE 'YYYY_MM_DD_HH24MISS_US' END;
    i := 0;
    LOOP
        -- start + i * step, not repeated additions: a month after January
        -- 31 is February 28, and the next should be March 31, not 28.
        t_lo := start_time + step * i;
        EXIT WHEN t_lo >= end_time;
        t_hi := start_time + step * (i + 1);
        IF t_hi <= t_lo THEN
            RAISE EXCEPTION 'snowflake_create_partitions: step % does not advance from %', step, t_lo
                USING ERRCODE = '22023',
                      HINT = 'Use a step whose parts are all positive.';
        END IF;
        IF i >= max_partitions THEN
            RAISE EXCEPTION 'snowflake_create_partitions: more than % partitions from % to % by %',
                            max_partitions, start_time, end_time, step
                USING ERRCODE = '54000',
                      HINT = 'Create them in several calls, each in a transaction of its own (every new partition holds a lock until the transaction ends), or use a longer step.';
        END IF;
        lo := @extschema@.snowflake_min_id_since(t_lo);
        hi := @extschema@.snowflake_min_id_since(t_hi);
        IF lo IS NULL THEN
            RAISE EXCEPTION 'snowflake_create_partitions: % is past the end of the snowflake lifetime', t_lo
                USING ERRCODE = '22008',
                      DETAIL = format('The last millisecond the layout can represent is %s.',
                                      @extschema@.snowflake_timestamp(9223372036854775807));
        END IF;
        IF lo = hi AND t_hi <= @extschema@.snowflake_timestamp(0) THEN
            RAISE EXCEPTION 'snowflake_create_partitions: the partition from % to % would hold no ids', t_lo, t_hi
                USING ERRCODE = '22008',
                      DETAIL = format('It ends before the snowflake epoch, %s.',
                                      @extschema@.snowflake_timestamp(0)),
                      HINT = 'Start at or after the epoch.';
        ELSIF lo = hi THEN
            -- Within one millisecond: ids carry whole milliseconds.
            RAISE EXCEPTION 'snowflake_create_partitions: the partition from % to % would hold no ids', t_lo, t_hi
                USING ERRCODE = '22023',
                      DETAIL = 'Ids carry whole milliseconds, and no millisecond starts within it.',
                      HINT = 'Use a step of at least 1 millisecond.';
        END IF;
        v_name := v_relname || '_' || to_char(t_lo, v_fmt);
        IF octet_length(v_name) > 63 THEN
            RAISE EXCEPTION 'snowflake_create_partitions: partition name "%" is longer than 63 bytes', v_name
                USING ERRCODE = '42622',
                      HINT = 'Partitions are named after the table and their start; give the table a shorter name.';
        END IF;
        IF v_name = ANY (p_name) THEN
            RAISE EXCEPTION 'snowflake_create_partitions: two partitions would be named "%"', v_name
                USING ERRCODE = '42P07',
                      DETAIL = format('Steps of %s in time zone %s start twice in the same %s.', step, time_zone,
                                      CASE v_fmt WHEN 'YYYY_MM_DD_HH24' THEN 'hour' ELSE 'period' END),
                      HINT = 'Use time_zone => ''UTC'' for steps shorter than a day.';
        END IF;
        -- Already there with these bounds (a second run): nothing to do.
        -- Overlapping an existing partition otherwise: refuse.
        v_skip := false;
        FOR j IN 1 .. coalesce(array_length(e_name, 1), 0) LOOP
            IF e_lo[j] IS NOT DISTINCT FROM lo AND NOT e_lo_min[j]
               AND ((hi IS NULL AND e_hi_max[j]) OR e_hi[j] = hi) THEN
                v_skip := true;
            ELSIF (e_lo_min[j] OR hi IS NULL OR e_lo[j] < hi)
                  AND (e_hi_max[j] OR e_hi[j] > lo) THEN
                RAISE EXCEPTION 'snowflake_create_partitions: a partition from % to % would overlap partition %',
                                t_lo, t_hi, quote_ident(e_name[j])
                    USING ERRCODE = '42P17',
                          DETAIL = format('%s holds ids from %s to %s (%s to %s).', quote_ident(e_name[j]),
                                          CASE WHEN e_lo_min[j] THEN 'MINVALUE' ELSE e_lo[j]::text END,
                                          CASE WHEN e_hi_max[j] THEN 'MAXVALUE' ELSE e_hi[j]::text END,
                                          CASE WHEN e_lo_min[j] THEN '-infinity'
                                               ELSE @extschema@.snowflake_timestamp(greatest(e_lo[j], 0))::text END,
                                          CASE WHEN e_hi_max[j] THEN 'infinity'
                                               ELSE @extschema@.snowflake_timestamp(greatest(e_hi[j], 0))::text END),
                          HINT = 'Choose start_time and step so that the new partitions begin where the existing ones end, or detach the overlapping partition first.';
            END IF;
        END LOOP;
        IF NOT v_skip THEN
            IF to_regclass(v_nsp || '.' || quote_ident(v_name)) IS NOT NULL THEN
                RAISE EXCEPTION 'snowflake_create_partitions: relation %.% already exists', v_nsp, quote_ident(v_name)
                    USING ERRCODE = '42P07',
                          HINT = 'It is not a partition of this table with these bounds: rename or drop it first.';
            END IF;
            p_name := p_name || v_name;
            p_lo := p_lo || lo;
            p_hi := p_hi || hi;
            p_from := p_from || t_lo;
            p_to := p_to || t_hi;
        END IF;
        i := i + 1;
    END LOOP;

    -- ---------------------------------------------------------- create
    FOR i IN 1 .. coalesce(array_length(p_name, 1), 0) LOOP
        v_stmt := format('CREATE TABLE %s.%I PARTITION OF %s FOR VALUES FROM (%s) TO (%s)',
                         v_nsp, p_name[i], v_tab, p_lo[i], coalesce(p_hi[i]::text, 'MAXVALUE'));
        IF NOT dry_run THEN
            EXECUTE v_stmt;
        END IF;
        RETURN NEXT v_stmt;
    END LOOP;
END
$create$;
COMMENT ON FUNCTION @extschema@.snowflake_create_partitions(regclass, timestamptz, timestamptz, interval, text, boolean) IS
    'create range partitions of an id-partitioned table, one per step from start_time until end_time is covered';
