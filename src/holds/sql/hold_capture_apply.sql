-- A capture of a hold by its payee, under a key already claimed (capture_hold, generated from
-- src/movements/sql/movement_entry.sql.template). The hold's row lock serialises captures of one
-- hold, so they never add up to more than its amount; then the payee's account, then the holds
-- account (every hold movement locks it last). The capture is a TRANSFER from the payer to the
-- payee naming the hold (hold_reference_id), whose DEBIT is the holds account's: the payer's
-- money left at placement. Not counted by the limits again. Returns {"code", "data", "at"}. Codes:
-- completed | hold-not-found | not-hold-payee | hold-not-open | hold-exceeded | account-frozen.
CREATE OR REPLACE FUNCTION hold_capture_apply(
  p_owner text,
  p_hold_reference_id uuid,
  p_amount numeric(19,4),
  p_note text,
  p_reference_id uuid,
  p_event_id uuid
) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := date_trunc('milliseconds', now());
  v_at text := iso_millis(v_now);
  v_hold holds%ROWTYPE;
  v_payee users%ROWTYPE;
  v_remaining numeric(19,4);
  v_amount numeric(19,4);
  v_note text;
  v_transaction_id bigint;
  v_refusal jsonb;
BEGIN
  SELECT * INTO v_hold FROM holds WHERE reference_id = p_hold_reference_id FOR UPDATE;
  v_refusal := hold_refusal(v_hold, p_hold_reference_id, p_owner);
  v_remaining := v_hold.amount - v_hold.captured_amount;
  v_amount := coalesce(p_amount, v_remaining);
  IF v_refusal IS NULL AND v_amount > v_remaining THEN
    v_refusal := jsonb_build_object('code', 'hold-exceeded',
      'data', jsonb_build_object('remaining', v_remaining::text, 'requested', v_amount::text));
  END IF;
  IF v_refusal IS NULL THEN
    v_payee := account_locked(v_hold.payee_id);
    IF v_payee.frozen_at IS NOT NULL OR EXISTS (SELECT 1 FROM users WHERE id = v_hold.payer_id AND frozen_at IS NOT NULL) THEN
      -- src/limits: a frozen account neither sends nor receives
      v_refusal := jsonb_build_object('code', 'account-frozen',
        'data', jsonb_build_object('side', CASE WHEN v_payee.frozen_at IS NOT NULL THEN 'receiver' ELSE 'sender' END));
    END IF;
  END IF;
  IF v_refusal IS NOT NULL THEN
    RETURN v_refusal || jsonb_build_object('at', v_at);
  END IF;

  v_now := date_trunc('milliseconds', clock_timestamp());
  v_at := iso_millis(v_now);
  v_note := coalesce(p_note, v_hold.note);
  -- transaction_record's columns and the hold's reference, which only a capture carries.
  INSERT INTO transactions (reference_id, type, sender_id, receiver_id, sender_upi_id, receiver_upi_id, amount, note,
                            created_at, hold_reference_id)
  VALUES (p_reference_id, 'TRANSFER', v_hold.payer_id, v_hold.payee_id, v_hold.payer_upi_id, v_hold.payee_upi_id,
          v_amount, v_note, v_now, v_hold.reference_id)
  RETURNING id INTO v_transaction_id;
  PERFORM ledger_append(v_hold.account_id, v_transaction_id, p_reference_id, 'DEBIT', v_amount, v_now);
  PERFORM ledger_append(v_payee.id, v_transaction_id, p_reference_id, 'CREDIT', v_amount, v_now);
  INSERT INTO hold_captures (hold_id, transaction_reference_id, amount, created_at)
  VALUES (v_hold.id, p_reference_id, v_amount, v_now);
  UPDATE holds
  SET captured_amount = captured_amount + v_amount,
      status = CASE WHEN captured_amount + v_amount = amount THEN 'CAPTURED' ELSE status END,
      closed_at = CASE WHEN captured_amount + v_amount = amount THEN v_now END
  WHERE id = v_hold.id
  RETURNING * INTO v_hold;
  INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload, created_at)
  VALUES (p_event_id, 'HoldCaptured', v_hold.payer_upi_id, hold_event_payload(p_event_id, 'HoldCaptured', v_at, v_hold,
    json_build_object('transactionId', v_transaction_id, 'transactionReferenceId', p_reference_id,
                      'capturedNow', v_amount::text)), v_now);
  RETURN jsonb_build_object('code', 'completed', 'at', v_at, 'data', jsonb_build_object(
    'transactionId', v_transaction_id::text, 'referenceId', p_reference_id,
    'senderUpiId', v_hold.payer_upi_id, 'receiverUpiId', v_hold.payee_upi_id,
    'amount', v_amount::text, 'note', v_note, 'createdAt', v_at, 'holdReferenceId', v_hold.reference_id));
END
$$;
