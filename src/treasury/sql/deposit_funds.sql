-- A deposit: money issued by the treasury to a user, under the movement skeleton
-- (idempotency_claim, then idempotent_movement) around the deposit's rules (deposit_apply.sql).
-- Codes: those of deposit_apply; a replay may also answer key-reused.
CREATE OR REPLACE FUNCTION deposit_funds(
  p_owner text,
  p_idempotency_key text,
  p_request_hash text,
  p_upi_id text,
  p_amount numeric(19,4),
  p_note text,
  p_reference_id uuid,
  p_context jsonb
) RETURNS TABLE (result jsonb, replayed boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_replay jsonb := idempotency_claim(p_owner, p_idempotency_key, p_request_hash);
  v_decided jsonb;
BEGIN
  IF v_replay IS NULL THEN
    v_decided := deposit_apply(p_upi_id, p_amount, p_note, p_reference_id);
  END IF;
  RETURN QUERY SELECT * FROM idempotent_movement(p_owner, p_idempotency_key, p_request_hash, v_replay, v_decided,
    p_context);
END
$$;
