-- Stores a movement's outcome under its key and returns it for the caller to answer. The record is
-- inserted here, complete, in one write (idempotency_claim wrote nothing), keeping of the outcome
-- what a replay needs (idempotency_stored_outcome.sql), its request id apart as a uuid
-- (outcome_request_id.sql); response_status is the operators' one-glance summary, looked up from
-- the code (outcome_response_status.sql, generated from the service's outcome vocabulary): the
-- movement itself writes only a code and its data. The unique index of the day's partition on the
-- digest of (owner, key) (idempotency_key_digest.sql) stays the backstop against a writer that
-- does not take the claim's lock (a hand-written row): the insert waits at most 2 s for such a row
-- in flight (then 55P03), and finding one committed aborts this movement with 23505; the service
-- answers either with 409 (src/movements/movement-call.ts), and a retry replays the other's
-- outcome. A plain insert, not ON CONFLICT: a speculative insert costs every record a WAL record
-- more. Across days, the key's lock keeps one (owner, key) to one request (ensure_partitions.sql).
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
  INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status, response_status, outcome,
                                transaction_id, request_id)
  SELECT p_owner, p_idempotency_key, decode(p_request_hash, 'hex'),
         CASE p_outcome->>'code' WHEN 'completed' THEN 'SUCCESS' ELSE 'FAILED' END,
         outcome_response_status(p_outcome->>'code'), outcome_without_request_id(kept.outcome), kept.transaction_id,
         outcome_request_id(p_outcome)
  FROM idempotency_stored_outcome(p_outcome) AS kept;
  RETURN p_outcome;
END
$$;
