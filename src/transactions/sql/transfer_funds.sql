-- A transfer, whole: claim the idempotency key, lock both accounts in a fixed order, apply the
-- rules, write balances, transaction, ledger rows and outbox event, and store the outcome, all in
-- the caller's single round trip and single transaction.
--
-- Returns the outcome as data: {"code", "data", "at", ...p_context}. HTTP is written by the
-- service (outcome-renderer.ts); p_context carries what the first answer fixes (request id,
-- path) so a replay renders the same bytes. Codes: completed | self-transfer | user-not-found |
-- insufficient-balance | payment-request-not-open; a replay may also answer key-reused or legacy (idempotent_replay.sql).
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
  v_claim record;
  v_locked_first users%ROWTYPE;
  v_locked_second users%ROWTYPE;
  v_sender users%ROWTYPE;
  v_receiver users%ROWTYPE;
  v_first text := lower(p_sender_upi_id);
  v_second text := lower(p_receiver_upi_id);
  v_transaction_id bigint;
  v_sender_hash char(64);
  v_receiver_hash char(64);
  -- Millisecond precision, so the stored time and every JSON rendering of it agree.
  v_now timestamptz := date_trunc('milliseconds', now());
  v_at text := iso_millis(v_now);
  v_code text;
  v_data jsonb := '{}';
  v_limits jsonb; -- src/limits/sql: freezes and limits, read from the rows locked here
  v_refusal jsonb;
BEGIN
  -- The key rules (idempotency_claim.sql): answer what a finished twin answered, or go on holding the key.
  SELECT * INTO v_claim FROM idempotency_claim(p_owner, p_idempotency_key, p_request_hash, v_now);
  IF v_claim.replay IS NOT NULL THEN
    RETURN QUERY SELECT v_claim.replay, v_claim.replay->>'code' <> 'key-reused';
    RETURN;
  END IF;

  IF v_first = v_second THEN
    v_code := 'self-transfer';
  ELSE
    -- Lock both accounts in one fixed order (lower-cased UPI ID, byte order), so
    -- opposite-direction transfers between the same pair can never deadlock.
    IF v_first COLLATE "C" > v_second COLLATE "C" THEN
      v_first := lower(p_receiver_upi_id);
      v_second := lower(p_sender_upi_id);
    END IF;
    SELECT * INTO v_locked_first FROM users WHERE lower(upi_id) = v_first FOR UPDATE;
    SELECT * INTO v_locked_second FROM users WHERE lower(upi_id) = v_second FOR UPDATE;
    IF v_first = lower(p_sender_upi_id) THEN
      v_sender := v_locked_first;
      v_receiver := v_locked_second;
    ELSE
      v_sender := v_locked_second;
      v_receiver := v_locked_first;
    END IF;

    v_limits := limits_begin(ARRAY[v_sender.id, v_receiver.id], v_now);
    v_refusal := limits_refusal(v_limits, v_sender.id, v_receiver.id, p_amount);
    IF v_receiver.id IS NULL OR v_sender.id IS NULL THEN
      v_code := 'user-not-found';
      v_data := jsonb_build_object('upiId',
        CASE WHEN v_receiver.id IS NULL THEN p_receiver_upi_id ELSE p_sender_upi_id END);
    ELSIF v_refusal IS NOT NULL THEN
      v_code := v_refusal->>'code';
      v_data := v_refusal->'data';
    ELSIF v_sender.balance < p_amount THEN
      v_code := 'insufficient-balance';
      v_data := jsonb_build_object('available', v_sender.balance::text, 'required', p_amount::text);
    -- Last: it marks a paid request PAID, so no rule may refuse the transfer after it.
    ELSIF NOT payment_request_settle(p_context, p_reference_id) THEN
      v_code := 'payment-request-not-open';
      v_data := payment_request_refusal(p_context);
    ELSE
      -- Stamp the movement once its accounts are locked: an account's entries then carry times in
      -- the order they commit, which statements and balance history rely on.
      v_now := date_trunc('milliseconds', clock_timestamp());
      v_at := iso_millis(v_now);
      -- Each entry chains to its account's head hash, read from the row locked above: no extra lock.
      v_sender_hash := ledger_entry_hash(v_sender.last_entry_hash, v_sender.id, p_reference_id, 'DEBIT',
        p_amount, v_sender.balance, v_sender.balance - p_amount, v_now);
      v_receiver_hash := ledger_entry_hash(v_receiver.last_entry_hash, v_receiver.id, p_reference_id, 'CREDIT',
        p_amount, v_receiver.balance, v_receiver.balance + p_amount, v_now);
      UPDATE users SET balance = balance - p_amount, version = version + 1, updated_at = v_now,
        last_entry_hash = v_sender_hash
      WHERE id = v_sender.id;
      UPDATE users SET balance = balance + p_amount, version = version + 1, updated_at = v_now,
        last_entry_hash = v_receiver_hash
      WHERE id = v_receiver.id;

      INSERT INTO transactions (reference_id, sender_id, receiver_id, sender_upi_id, receiver_upi_id, amount, note, created_at)
      VALUES (p_reference_id, v_sender.id, v_receiver.id, v_sender.upi_id, v_receiver.upi_id, p_amount, p_note, v_now)
      RETURNING id INTO v_transaction_id;

      INSERT INTO ledger_entries (user_id, transaction_id, transaction_reference_id, entry_type, amount, balance_before, balance_after, created_at, hash)
      VALUES
        (v_sender.id, v_transaction_id, p_reference_id, 'DEBIT', p_amount, v_sender.balance, v_sender.balance - p_amount, v_now, v_sender_hash),
        (v_receiver.id, v_transaction_id, p_reference_id, 'CREDIT', p_amount, v_receiver.balance, v_receiver.balance + p_amount, v_now, v_receiver_hash);

      -- The event is a contract of its own (CONTRACTS.md), not an HTTP body: written here, once.
      INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload, created_at)
      VALUES (p_event_id, 'TransferCompleted', v_sender.upi_id, format(
        '{"eventId":"%s","eventType":"TransferCompleted","occurredAt":"%s","transactionId":%s,"transactionReferenceId":"%s","senderUpiId":%s,"receiverUpiId":%s,"amount":"%s","currency":"INR","note":%s%s}',
        p_event_id, v_at, v_transaction_id, p_reference_id,
        to_json(v_sender.upi_id)::text, to_json(v_receiver.upi_id)::text, p_amount, coalesce(to_json(p_note)::text, 'null'),
        payment_request_event_field(p_context)), v_now);

      PERFORM limits_finish(limits_count(v_limits, v_sender.id, p_amount)) WHERE v_limits IS NOT NULL;
      v_code := 'completed';
      -- Ids and amounts as text: they are rendered exactly, never through a float.
      v_data := jsonb_build_object(
        'transactionId', v_transaction_id::text, 'referenceId', p_reference_id,
        'senderUpiId', v_sender.upi_id, 'receiverUpiId', v_receiver.upi_id,
        'amount', p_amount::text, 'note', p_note, 'createdAt', v_at);
    END IF;
  END IF;

  RETURN QUERY SELECT idempotency_finish(p_owner, p_idempotency_key, p_request_hash, v_claim.key_id,
    jsonb_build_object('code', v_code, 'data', v_data, 'at', v_at) || coalesce(p_context, '{}'),
    CASE v_code WHEN 'completed' THEN 201 WHEN 'self-transfer' THEN 400 WHEN 'user-not-found' THEN 404
      WHEN 'payment-request-not-open' THEN 409 ELSE 422 END),
    false;
END
$$;
