-- Stores a movement's outcome under its key, with the HTTP status as the operators' one-glance
-- summary (the renderer decides HTTP); returns the outcome for the caller to answer. A fresh key's
-- record is inserted here, complete, in one write (idempotency_claim wrote nothing); a claim
-- taken over (p_key_id) is completed in place.
-- The unique index stays the backstop against a writer that does not take the claim's lock (an
-- earlier version, a hand-written row): the insert waits at most 2 s for such a row in flight,
-- and finding one aborts this movement with 55P03 (409); a retry replays the other's outcome.
CREATE OR REPLACE FUNCTION idempotency_finish(
  p_owner text,
  p_idempotency_key text,
  p_request_hash text,
  p_key_id bigint,
  p_outcome jsonb,
  p_status integer
) RETURNS jsonb
LANGUAGE plpgsql
SET lock_timeout = '2s'
AS $$
DECLARE
  v_status text := CASE WHEN p_status < 300 THEN 'SUCCESS' ELSE 'FAILED' END;
BEGIN
  IF p_key_id IS NOT NULL THEN
    UPDATE idempotency_keys
    SET status = v_status, response_status = p_status, outcome = p_outcome, updated_at = now()
    WHERE id = p_key_id;
    RETURN p_outcome;
  END IF;

  INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status, response_status, outcome)
  VALUES (p_owner, p_idempotency_key, p_request_hash, v_status, p_status, p_outcome)
  ON CONFLICT (owner_upi_id, idempotency_key) DO NOTHING;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'idempotency key % is in flight', p_idempotency_key USING ERRCODE = '55P03';
  END IF;
  RETURN p_outcome;
END
$$;
