-- What an idempotency record keeps of a movement's outcome (issue 41: what a byte-identical replay
-- needs, not the whole answer). A completed outcome whose data is exactly its transaction row's
-- (transaction_outcome_data.sql), and whose "at" is the row's time, is kept as the transaction's id
-- and what completed_outcome_kept.sql keeps: idempotent_replay.sql rebuilds the same JSON from the row.
-- Any other outcome (a refusal, data the row does not hold) is kept whole, transaction_id NULL.
CREATE OR REPLACE FUNCTION idempotency_stored_outcome(
  p_outcome jsonb,
  OUT outcome jsonb,
  OUT transaction_id bigint
)
LANGUAGE sql STABLE AS $$
  SELECT coalesce(rebuilt.outcome, p_outcome), rebuilt.transaction_id
  FROM (SELECT) AS one
  LEFT JOIN LATERAL (
    SELECT completed_outcome_kept(p_outcome) AS outcome, t.id AS transaction_id
    FROM transactions t
    WHERE t.id = CASE WHEN p_outcome->>'code' = 'completed' AND p_outcome->'data'->>'transactionId' ~ '^[0-9]{1,18}$'
                      THEN (p_outcome->'data'->>'transactionId')::bigint END
      AND t.created_at = CASE WHEN p_outcome->>'at' ~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'
                              THEN (p_outcome->>'at')::timestamptz END
      AND transaction_outcome_data(t) = p_outcome->'data'
  ) AS rebuilt ON true
$$;
