-- The skeleton every money movement shares, written once: a movement function claims its key
-- (idempotency_claim), runs its own rules only when there is nothing to replay, and hands both here:
--   replay:  the stored outcome (or key-reused), answered as is, replayed unless key-reused;
--   decided: the movement's {"code", "data", "at"}; what the first answer fixes (p_context: request
--            id, path...) joins it, and the whole is stored under the key, in the same transaction.
-- docs/decisions/0017-one-movement-skeleton.md says why this lives in SQL.
CREATE OR REPLACE FUNCTION idempotent_movement(
  p_owner text,
  p_idempotency_key text,
  p_request_hash text,
  p_replay jsonb,
  p_decided jsonb,
  p_context jsonb
) RETURNS TABLE (result jsonb, replayed boolean)
LANGUAGE plpgsql AS $$
BEGIN
  IF p_replay IS NOT NULL THEN
    RETURN QUERY SELECT p_replay, p_replay->>'code' <> 'key-reused';
    RETURN;
  END IF;
  RETURN QUERY SELECT idempotency_finish(p_owner, p_idempotency_key, p_request_hash,
    p_decided || coalesce(p_context, '{}')), false;
END
$$;
