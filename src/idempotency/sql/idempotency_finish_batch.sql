-- Stores the outcomes of a batch's fresh items under their keys, one multi-row insert, in the
-- batch's transaction (idempotency_finish.sql for many items at once): the code decides the status
-- and, through outcome_response_status.sql, the operators' one-glance response_status.
-- An item given its transaction's id completed with data that is exactly that row's
-- transaction_outcome_data (the caller read it from the row it inserted) at the row's time: it is
-- kept as idempotency_stored_outcome.sql keeps such an outcome (completed_outcome_kept.sql),
-- naming the row. Any other item (a refusal, p_transaction_id NULL) is kept whole. Either keeps its
-- request id apart as a uuid (outcome_request_id.sql), as idempotency_finish.sql does.
-- The unique index of the day's partition on the digest of (owner, key) (idempotency_key_digest.sql)
-- stays the backstop against a writer that does not take the key's lock: a row already there
-- (23505), or in flight (waited for 2 s at most, then 55P03), aborts the whole batch, and the
-- service then runs each item alone, where that key answers 409. A plain insert, as
-- idempotency_finish.sql says why.
CREATE OR REPLACE FUNCTION idempotency_finish_batch(
  p_owner text[],
  p_idempotency_key text[],
  p_request_hash text[],
  p_outcome jsonb[],
  p_transaction_id bigint[]
) RETURNS void
LANGUAGE plpgsql
SET lock_timeout = '2s'
AS $$
BEGIN
  INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status, response_status, outcome,
                                transaction_id, request_id)
  SELECT x.o, x.k, decode(x.h, 'hex'), CASE x.outcome->>'code' WHEN 'completed' THEN 'SUCCESS' ELSE 'FAILED' END,
         outcome_response_status(x.outcome->>'code'),
         outcome_without_request_id(CASE WHEN x.t IS NULL THEN x.outcome ELSE completed_outcome_kept(x.outcome) END),
         x.t, outcome_request_id(x.outcome)
  FROM unnest(p_owner, p_idempotency_key, p_request_hash, p_outcome, p_transaction_id)
    WITH ORDINALITY AS x(o, k, h, outcome, t, n)
  ORDER BY x.n;
END
$$;
