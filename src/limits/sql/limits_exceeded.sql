-- The limit-exceeded outcome: amounts as text with 4 places (counts as integers), rendered exactly.
CREATE OR REPLACE FUNCTION limits_exceeded(p_name text, p_max numeric, p_used numeric, p_resets_at text)
RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('code', 'limit-exceeded', 'data', jsonb_build_object('limit', jsonb_build_object(
    'name', p_name,
    'max', CASE WHEN p_name = 'daily-count' THEN p_max::integer::text ELSE p_max::numeric(19,4)::text END,
    'used', CASE WHEN p_name = 'daily-count' THEN p_used::integer::text ELSE p_used::numeric(19,4)::text END,
    'remaining', CASE WHEN p_name = 'daily-count' THEN greatest(p_max - p_used, 0)::integer::text
                      ELSE greatest(p_max - p_used, 0)::numeric(19,4)::text END,
    'resetsAt', p_resets_at)))
$$;
