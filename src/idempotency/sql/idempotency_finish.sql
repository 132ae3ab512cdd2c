-- Stores a movement's outcome under its key and returns it for the caller to answer. The record is
-- inserted here, complete, in one write (idempotency_claim wrote nothing); response_status is the
-- operators' one-glance summary, looked up from the code (outcome_response_status.sql, generated
-- from the service's outcome vocabulary): the movement itself writes only a code and its data.
-- The unique index of the day's partition on (owner, key) stays the backstop against a writer that
-- does not take the claim's lock (a hand-written row): the insert waits at most 2 s for such a row
-- in flight, and finding one aborts this movement with 55P03 (409); a retry replays the other's
-- outcome. Across days, the key's lock keeps one (owner, key) to one request (ensure_partitions.sql).
CREATE OR REPLACE FUNCTION idempotency_finish(
  p_owner text,
  p_idempotency_key text,
  p_request_hash text,
  p_outcome jsonb
) RETURNS jsonb
LANGUAGE plpgsql
SET lock_timeout = '2s'
AS $$
BEGIN
  INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status, response_status, outcome)
  VALUES (p_owner, p_idempotency_key, p_request_hash,
          CASE p_outcome->>'code' WHEN 'completed' THEN 'SUCCESS' ELSE 'FAILED' END,
          outcome_response_status(p_outcome->>'code'), p_outcome)
  ON CONFLICT DO NOTHING;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'idempotency key % is in flight', p_idempotency_key USING ERRCODE = '55P03';
  END IF;
  RETURN p_outcome;
END
$$;
