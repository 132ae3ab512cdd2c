-- A reversal (refund) of a TRANSFER by its receiver, whole or in part: the movement skeleton
-- (idempotency_claim, then idempotent_movement) around the reversal's rules (reversal_apply.sql).
-- Codes: those of reversal_apply; a replay may also answer key-reused.
CREATE OR REPLACE FUNCTION reverse_transfer(
  p_owner text,
  p_idempotency_key text,
  p_request_hash text,
  p_original_reference_id uuid,
  p_amount numeric(19,4),
  p_note text,
  p_reference_id uuid,
  p_event_id uuid,
  p_context jsonb
) RETURNS TABLE (result jsonb, replayed boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_replay jsonb := idempotency_claim(p_owner, p_idempotency_key, p_request_hash);
  v_decided jsonb;
BEGIN
  IF v_replay IS NULL THEN
    v_decided := reversal_apply(p_owner, p_original_reference_id, p_amount, p_note, p_reference_id, p_event_id);
  END IF;
  RETURN QUERY SELECT * FROM idempotent_movement(p_owner, p_idempotency_key, p_request_hash, v_replay, v_decided,
    p_context);
END
$$;
