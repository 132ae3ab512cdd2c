-- A time as every JSON body and event writes it: UTC, ISO 8601, exactly three decimals
-- ("2026-11-23T04:51:15.123Z"). Callers pass times already truncated to milliseconds, so the
-- stored value and its rendering agree. Inlined by PostgreSQL (a one-expression SQL function).
CREATE OR REPLACE FUNCTION iso_millis(p_at timestamptz) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;
