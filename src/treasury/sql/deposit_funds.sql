-- A deposit: money issued by the treasury to a user, under the transfer's key rules. Locks the
-- user, then the treasury (treasury_issue.sql; registrations take them in the same order). Codes: completed | user-not-found; a replay may also
-- answer key-reused or legacy.
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
  v_now timestamptz := date_trunc('milliseconds', now());
  v_at text := iso_millis(v_now);
  v_claim record;
  v_user users%ROWTYPE;
  v_transaction_id bigint;
  v_code text;
  v_status integer;
  v_data jsonb := '{}';
BEGIN
  SELECT * INTO v_claim FROM idempotency_claim(p_owner, p_idempotency_key, p_request_hash, v_now);
  IF v_claim.replay IS NOT NULL THEN
    RETURN QUERY SELECT v_claim.replay, v_claim.replay->>'code' <> 'key-reused';
    RETURN;
  END IF;

  SELECT * INTO v_user FROM users WHERE lower(upi_id) = lower(p_upi_id) AND kind = 'USER' FOR UPDATE;
  IF v_user.id IS NULL THEN
    v_code := 'user-not-found';
    v_status := 404;
    v_data := jsonb_build_object('upiId', p_upi_id);
  ELSIF v_user.frozen_at IS NOT NULL THEN
    v_code := 'account-frozen'; -- src/limits: a frozen account neither sends nor receives
    v_status := 422;
    v_data := '{"side": "receiver"}';
  ELSE
    -- The sender is the treasury (row 0 stands for it); its DEBITs name the rows that issued it.
    -- Stamp the movement once its accounts are locked: an account's entries then carry times in
    -- the order they commit, which statements and balance history rely on.
    v_now := date_trunc('milliseconds', clock_timestamp());
    v_at := iso_millis(v_now);
    INSERT INTO transactions (reference_id, sender_id, receiver_id, sender_upi_id, receiver_upi_id, amount, note,
                              type, created_at)
    VALUES (p_reference_id, 0, v_user.id, 'treasury', v_user.upi_id, p_amount, p_note, 'DEPOSIT', v_now)
    RETURNING id INTO v_transaction_id;
    PERFORM treasury_issue(v_user.id, v_transaction_id, p_reference_id, p_amount, v_now);
    PERFORM ledger_append(v_user.id, v_transaction_id, p_reference_id, 'CREDIT', p_amount, v_now);
    v_code := 'completed';
    v_status := 201;
    v_data := jsonb_build_object(
      'transactionId', v_transaction_id::text, 'referenceId', p_reference_id,
      'senderUpiId', 'treasury', 'receiverUpiId', v_user.upi_id,
      'amount', p_amount::text, 'status', 'COMPLETED', 'type', 'DEPOSIT', 'note', p_note, 'createdAt', v_at);
  END IF;

  RETURN QUERY SELECT idempotency_finish(p_owner, p_idempotency_key, p_request_hash, v_claim.key_id,
    jsonb_build_object('code', v_code, 'data', v_data, 'at', v_at) || coalesce(p_context, '{}'), v_status), false;
END
$$;
