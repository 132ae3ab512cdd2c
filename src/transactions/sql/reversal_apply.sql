-- A reversal's rules and writes, under a key already claimed (reverse_transfer, generated from
-- src/movements/sql/movement_entry.sql.template). The
-- original's row lock serialises reversals of one transfer, so their sum never exceeds it; the two
-- accounts are then locked in the transfer's fixed order (lower-cased UPI ID, byte order).
-- Returns {"code", "data", "at"}. Codes: completed | transaction-not-found |
-- not-transaction-receiver | not-reversible | reversal-exceeds-remaining | account-frozen |
-- insufficient-balance.
CREATE OR REPLACE FUNCTION reversal_apply(
  p_owner text,
  p_original_reference_id uuid,
  p_amount numeric(19,4),
  p_note text,
  p_reference_id uuid,
  p_event_id uuid
) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := date_trunc('milliseconds', now());
  v_at text := iso_millis(v_now);
  v_original transactions%ROWTYPE;
  v_payer users%ROWTYPE;
  v_payee users%ROWTYPE;
  v_remaining numeric(19,4);
  v_amount numeric(19,4);
  v_transaction_id bigint;
  v_code text;
  v_data jsonb := '{}';
BEGIN
  SELECT * INTO v_original FROM transactions WHERE reference_id = p_original_reference_id FOR UPDATE;
  v_remaining := v_original.amount - v_original.reversed_amount;
  v_amount := coalesce(p_amount, v_remaining);
  IF v_original.id IS NULL THEN
    v_code := 'transaction-not-found';
    v_data := jsonb_build_object('referenceId', p_original_reference_id);
  ELSIF lower(v_original.receiver_upi_id) <> p_owner THEN
    v_code := 'not-transaction-receiver';
  ELSIF v_original.type <> 'TRANSFER' THEN
    v_code := 'not-reversible';
    v_data := jsonb_build_object('type', v_original.type);
  ELSIF v_amount > v_remaining OR v_amount <= 0 THEN
    v_code := 'reversal-exceeds-remaining';
    v_data := jsonb_build_object('remaining', v_remaining::text, 'requested', v_amount::text);
  ELSE
    IF lower(v_original.receiver_upi_id) COLLATE "C" < lower(v_original.sender_upi_id) COLLATE "C" THEN
      v_payer := account_locked(v_original.receiver_id);
      v_payee := account_locked(v_original.sender_id);
    ELSE
      v_payee := account_locked(v_original.sender_id);
      v_payer := account_locked(v_original.receiver_id);
    END IF;
    -- Stamp the movement once its accounts are locked: an account's entries then carry times in
    -- the order they commit, which statements and balance history rely on.
    v_now := date_trunc('milliseconds', clock_timestamp());
    v_at := iso_millis(v_now);

    IF v_payer.frozen_at IS NOT NULL OR v_payee.frozen_at IS NOT NULL THEN
      v_code := 'account-frozen'; -- src/limits: a frozen account neither sends nor receives
      v_data := jsonb_build_object('side', CASE WHEN v_payer.frozen_at IS NOT NULL THEN 'sender' ELSE 'receiver' END);
    ELSIF v_payer.balance < v_amount THEN
      v_code := 'insufficient-balance';
      v_data := jsonb_build_object('available', v_payer.balance::text, 'required', v_amount::text);
    ELSE
      v_transaction_id := transaction_record(p_reference_id, 'REVERSAL', v_payer.id, v_payee.id, v_payer.upi_id,
        v_payee.upi_id, v_amount, p_note, v_original.id, v_original.reference_id, v_now);
      -- After the reversal's row: the transactions trigger lets the original's reversed amount and
      -- status change only under this transaction-local setting, and only to what its reversals sum to.
      PERFORM set_config('payments.reversal_of', v_original.id::text, true);
      UPDATE transactions
      SET reversed_amount = reversed_amount + v_amount,
          status = CASE WHEN reversed_amount + v_amount = amount THEN 'REVERSED' ELSE 'PARTIALLY_REVERSED' END
      WHERE id = v_original.id;
      PERFORM set_config('payments.reversal_of', '', true);
      PERFORM ledger_append(v_payer.id, v_transaction_id, p_reference_id, 'DEBIT', v_amount, v_now);
      PERFORM ledger_append(v_payee.id, v_transaction_id, p_reference_id, 'CREDIT', v_amount, v_now);

      -- The transfer event's envelope plus the original's reference (docs/api-guide.md), written once, here.
      INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload, created_at)
      VALUES (p_event_id, 'TransferReversed', v_payer.upi_id, format(
        '{"eventId":"%s","eventType":"TransferReversed","occurredAt":"%s","transactionId":%s,"transactionReferenceId":"%s","senderUpiId":%s,"receiverUpiId":%s,"amount":"%s","currency":"INR","note":%s,"originalTransactionReferenceId":"%s"}',
        p_event_id, v_at, v_transaction_id, p_reference_id, to_json(v_payer.upi_id)::text,
        to_json(v_payee.upi_id)::text, v_amount, coalesce(to_json(p_note)::text, 'null'), v_original.reference_id), v_now);

      v_code := 'completed';
      v_data := jsonb_build_object(
        'transactionId', v_transaction_id::text, 'referenceId', p_reference_id,
        'senderUpiId', v_payer.upi_id, 'receiverUpiId', v_payee.upi_id,
        'amount', v_amount::text, 'status', 'COMPLETED', 'type', 'REVERSAL', 'note', p_note, 'createdAt', v_at,
        'originalReferenceId', v_original.reference_id);
    END IF;
  END IF;

  RETURN jsonb_build_object('code', v_code, 'data', v_data, 'at', v_at);
END
$$;
