-- A transfer's rules and writes, under a key already claimed (transfer_funds, generated from
-- src/movements/sql/movement_entry.sql.template): lock both
-- accounts in a fixed order, apply the rules, then write the transaction, both ledger sides
-- (ledger_append.sql) and the outbox event. Returns {"code", "data", "at"}: completed, or the
-- refusal of the rules, which transfer_refusal.sql holds for this and transfer_funds_batch alike.
CREATE OR REPLACE FUNCTION transfer_apply(
  p_sender_upi_id text,
  p_receiver_upi_id text,
  p_amount numeric(19,4),
  p_note text,
  p_reference_id uuid,
  p_event_id uuid,
  p_context jsonb
) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_locked_first users%ROWTYPE;
  v_locked_second users%ROWTYPE;
  v_sender users%ROWTYPE;
  v_receiver users%ROWTYPE;
  v_first text := lower(p_sender_upi_id);
  v_second text := lower(p_receiver_upi_id);
  v_transaction_id bigint;
  -- Millisecond precision, so the stored time and every JSON rendering of it agree.
  v_now timestamptz := date_trunc('milliseconds', now());
  v_at text := iso_millis(v_now);
  v_code text;
  v_data jsonb := '{}';
  v_limits jsonb; -- src/limits/sql: freezes and limits, read from the rows locked here
  v_refusal jsonb;
BEGIN
  IF v_first <> v_second THEN
    -- Lock both accounts in one fixed order (lower-cased UPI ID, byte order), the order every
    -- movement and transfer_funds_batch lock accounts in, so no two of them can ever deadlock.
    IF v_first COLLATE "C" > v_second COLLATE "C" THEN
      v_first := lower(p_receiver_upi_id);
      v_second := lower(p_sender_upi_id);
    END IF;
    v_locked_first := account_locked_by_upi(v_first);
    v_locked_second := account_locked_by_upi(v_second);
    IF v_first = lower(p_sender_upi_id) THEN
      v_sender := v_locked_first;
      v_receiver := v_locked_second;
    ELSE
      v_sender := v_locked_second;
      v_receiver := v_locked_first;
    END IF;
  END IF;

  -- Read once the accounts are locked (none for a self-transfer, which locks nothing).
  v_limits := CASE WHEN v_first <> v_second THEN limits_begin(ARRAY[v_sender.id, v_receiver.id], v_now) END;
  v_refusal := transfer_refusal(p_context, p_sender_upi_id, p_receiver_upi_id, v_sender.id, v_receiver.id,
    v_sender.balance, p_amount, v_limits);
  IF v_refusal IS NOT NULL THEN
    v_code := v_refusal->>'code';
    v_data := v_refusal->'data';
  ELSE
    -- Stamp the movement once its accounts are locked: an account's entries then carry times in
    -- the order they commit, which statements and balance history rely on.
    v_now := date_trunc('milliseconds', clock_timestamp());
    v_at := iso_millis(v_now);
    v_transaction_id := transaction_record(p_reference_id, 'TRANSFER', v_sender.id, v_receiver.id,
      v_sender.upi_id, v_receiver.upi_id, p_amount, p_note, NULL, NULL, v_now);
    -- Each entry chains to its account's head hash, read once the account was held above.
    PERFORM ledger_append(v_sender.id, v_transaction_id, p_reference_id, 'DEBIT', p_amount, v_now);
    PERFORM ledger_append(v_receiver.id, v_transaction_id, p_reference_id, 'CREDIT', p_amount, v_now);
    PERFORM payment_request_settle(p_context, p_reference_id);

    INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload, transaction_id, created_at)
    SELECT p_event_id, 'TransferCompleted', e.aggregate_key, e.payload, e.transaction_id, v_now
    FROM transfer_event_columns(p_event_id, v_at, v_transaction_id, p_reference_id, v_sender.upi_id,
      v_receiver.upi_id, p_amount, p_note, p_context) AS e;

    PERFORM limits_finish(limits_count(v_limits, v_sender.id, p_amount)) WHERE v_limits IS NOT NULL;
    v_code := 'completed';
    -- Ids and amounts as text: they are rendered exactly, never through a float.
    v_data := jsonb_build_object(
      'transactionId', v_transaction_id::text, 'referenceId', p_reference_id,
      'senderUpiId', v_sender.upi_id, 'receiverUpiId', v_receiver.upi_id,
      'amount', p_amount::text, 'note', p_note, 'createdAt', v_at);
  END IF;
  RETURN jsonb_build_object('code', v_code, 'data', v_data, 'at', v_at);
END
$$;
