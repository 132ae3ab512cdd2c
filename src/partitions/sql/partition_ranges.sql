-- The partitions attached to p_table, each with its range [range_start, range_end), read from
-- the catalog (the bound PostgreSQL prints for a range partition of one timestamptz column).
CREATE OR REPLACE FUNCTION partition_ranges(p_table text)
RETURNS TABLE (schema_name text, partition_name text, range_start timestamptz, range_end timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT n.nspname::text, c.relname::text, b.bound[1]::timestamptz, b.bound[2]::timestamptz
  FROM pg_inherits i
  JOIN pg_class c ON c.oid = i.inhrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  CROSS JOIN LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid),
    'FROM [(]''([^'']+)''[)] TO [(]''([^'']+)''[)]') AS b(bound)
  WHERE i.inhparent = p_table::regclass
$$;
