-- The remainder of a hold back to its payer: a release by the payee (p_owner, a lower-cased UPI ID)
-- or, with p_owner NULL, the expiry of a hold past expiresAt. Not keyed (the release needs no
-- Idempotency-Key: a second one is hold-not-open), so not in the movement skeleton, but called
-- like the movements (src/movements/movement-call.ts) and with their locks: the hold's row, then
-- the payer's, then the holds account. Expiry skips a hold another instance holds locked (that one
-- expires it), so each hold expires exactly once however many instances run the job. The payer
-- gets the money back even if frozen since: it returns to the account it came from. A DEBIT of
-- the holds account and a CREDIT of the payer under p_return_reference_id; HoldReleased or
-- HoldExpired to the outbox. Returns ({"code", "data", "at"}, false); data is the hold when completed.
CREATE OR REPLACE FUNCTION hold_return(
  p_hold_reference_id uuid,
  p_owner text,
  p_return_reference_id uuid,
  p_event_id uuid
) RETURNS TABLE (result jsonb, replayed boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz;
  v_at text;
  v_hold holds%ROWTYPE;
  v_remaining numeric(19,4);
  v_status text := CASE WHEN p_owner IS NULL THEN 'EXPIRED' ELSE 'RELEASED' END;
  v_event text := CASE WHEN p_owner IS NULL THEN 'HoldExpired' ELSE 'HoldReleased' END;
  v_refusal jsonb;
BEGIN
  IF p_owner IS NULL THEN
    SELECT * INTO v_hold FROM holds
    WHERE reference_id = p_hold_reference_id AND status = 'HELD' AND expires_at <= clock_timestamp()
    FOR UPDATE SKIP LOCKED;
    IF v_hold.id IS NULL THEN
      v_refusal := jsonb_build_object('code', 'hold-not-open', 'data', jsonb_build_object('referenceId',
        p_hold_reference_id, 'status', 'HELD'));
    END IF;
  ELSE
    SELECT * INTO v_hold FROM holds WHERE reference_id = p_hold_reference_id FOR UPDATE;
    v_refusal := hold_refusal(v_hold, p_hold_reference_id, p_owner);
  END IF;
  IF v_refusal IS NOT NULL THEN
    RETURN QUERY SELECT v_refusal || jsonb_build_object('at', iso_millis(date_trunc('milliseconds', now()))), false;
    RETURN;
  END IF;

  PERFORM account_locked(v_hold.payer_id);
  v_now := date_trunc('milliseconds', clock_timestamp());
  v_at := iso_millis(v_now);
  v_remaining := v_hold.amount - v_hold.captured_amount;
  PERFORM ledger_append(v_hold.account_id, NULL, p_return_reference_id, 'DEBIT', v_remaining, v_now);
  PERFORM ledger_append(v_hold.payer_id, NULL, p_return_reference_id, 'CREDIT', v_remaining, v_now);
  UPDATE holds SET status = v_status, closed_at = v_now, return_reference_id = p_return_reference_id
  WHERE id = v_hold.id
  RETURNING * INTO v_hold;
  INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload, created_at)
  VALUES (p_event_id, v_event, v_hold.payer_upi_id, hold_event_payload(p_event_id, v_event, v_at, v_hold,
    json_build_object('returnedAmount', v_remaining::text)), v_now);
  RETURN QUERY SELECT jsonb_build_object('code', 'completed', 'data', hold_json(v_hold), 'at', v_at), false;
END
$$;
