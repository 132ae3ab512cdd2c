-- Stores a movement's outcome on its claimed key, with the HTTP status as the operators'
-- one-glance summary (the renderer decides HTTP); returns the outcome for the caller to answer.
CREATE OR REPLACE FUNCTION idempotency_finish(p_key_id bigint, p_outcome jsonb, p_status integer)
RETURNS jsonb
LANGUAGE sql AS $$
  UPDATE idempotency_keys
  SET status = CASE WHEN p_status < 300 THEN 'SUCCESS' ELSE 'FAILED' END,
      response_status = p_status, outcome = p_outcome, updated_at = now()
  WHERE id = p_key_id;
  SELECT p_outcome;
$$;
