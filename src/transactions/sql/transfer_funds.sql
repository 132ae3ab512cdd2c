-- A transfer, whole, in the caller's single round trip and single transaction: the movement
-- skeleton (idempotency_claim, then idempotent_movement) around the transfer's rules
-- (transfer_apply.sql). Returns the outcome as data: {"code", "data", "at", ...p_context}; the
-- service renders HTTP from the code (src/movements/). Codes: those of transfer_apply; a replay
-- may also answer key-reused.
CREATE OR REPLACE FUNCTION transfer_funds(
  p_owner text,
  p_idempotency_key text,
  p_request_hash text,
  p_sender_upi_id text,
  p_receiver_upi_id text,
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
    v_decided := transfer_apply(p_sender_upi_id, p_receiver_upi_id, p_amount, p_note, p_reference_id, p_event_id,
      p_context);
  END IF;
  RETURN QUERY SELECT * FROM idempotent_movement(p_owner, p_idempotency_key, p_request_hash, v_replay, v_decided,
    p_context);
END
$$;
