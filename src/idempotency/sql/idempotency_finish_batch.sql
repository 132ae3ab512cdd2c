-- Stores the outcomes of a batch's fresh items under their keys, one multi-row insert, in the
-- batch's transaction (idempotency_finish.sql for many items at once): the code decides the status
-- and, through outcome_response_status.sql, the operators' one-glance response_status.
-- An item given its transaction's id completed with data that is exactly that row's
-- transaction_outcome_data (the caller read it from the row it inserted): it is kept as
-- idempotency_stored_outcome.sql keeps such an outcome, without the data, naming the row. Any other
-- item (a refusal, p_transaction_id NULL) is kept whole.
-- The unique index of the day's partition on (owner, key) stays the backstop against a writer that
-- does not take the key's lock: a row already there, or in flight (waited for 2 s at most), aborts
-- the whole batch with 55P03, and the service then runs each item alone, where that key answers 409.
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
DECLARE
  v_written integer;
BEGIN
  INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status, response_status, outcome,
                                transaction_id)
  SELECT x.o, x.k, x.h, CASE x.outcome->>'code' WHEN 'completed' THEN 'SUCCESS' ELSE 'FAILED' END,
         outcome_response_status(x.outcome->>'code'),
         CASE WHEN x.t IS NULL THEN x.outcome ELSE x.outcome - 'data' END, x.t
  FROM unnest(p_owner, p_idempotency_key, p_request_hash, p_outcome, p_transaction_id)
    WITH ORDINALITY AS x(o, k, h, outcome, t, n)
  ORDER BY x.n
  ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS v_written = ROW_COUNT;
  IF v_written < cardinality(p_owner) THEN
    RAISE EXCEPTION 'an idempotency key of this batch is in flight' USING ERRCODE = '55P03';
  END IF;
END
$$;
