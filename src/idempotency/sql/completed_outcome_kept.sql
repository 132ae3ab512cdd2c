-- What an idempotency record keeps of a completed outcome that its transaction row rebuilds
-- (idempotency_stored_outcome.sql, idempotency_finish_batch.sql): everything but the data and the
-- time, which come back from the row (idempotent_replay.sql), so a replay returns the very outcome
-- the first call returned: its code, its context (request id, path, a payment's request).
CREATE OR REPLACE FUNCTION completed_outcome_kept(p_outcome jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT p_outcome - '{data,at}'::text[]
$$;
