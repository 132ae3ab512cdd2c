-- A deposit's rules and writes, under a key already claimed (deposit_funds, generated from
-- src/movements/sql/movement_entry.sql.template). Locks the user,
-- then the treasury (treasury_issue.sql; registrations take them in the same order). Returns
-- {"code", "data", "at"}. Codes: completed | user-not-found | account-frozen.
CREATE OR REPLACE FUNCTION deposit_apply(
  p_upi_id text,
  p_amount numeric(19,4),
  p_note text,
  p_reference_id uuid
) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := date_trunc('milliseconds', now());
  v_at text := iso_millis(v_now);
  v_user users%ROWTYPE;
  v_transaction_id bigint;
  v_code text;
  v_data jsonb := '{}';
BEGIN
  SELECT * INTO v_user FROM account_locked_by_upi(lower(p_upi_id)) WHERE kind = 'USER';
  IF v_user.id IS NULL THEN
    v_code := 'user-not-found';
    v_data := jsonb_build_object('upiId', p_upi_id);
  ELSIF v_user.frozen_at IS NOT NULL THEN
    v_code := 'account-frozen'; -- src/limits: a frozen account neither sends nor receives
    v_data := '{"side": "receiver"}';
  ELSE
    -- Stamp the movement once its accounts are locked: an account's entries then carry times in
    -- the order they commit, which statements and balance history rely on.
    v_now := date_trunc('milliseconds', clock_timestamp());
    v_at := iso_millis(v_now);
    -- The sender is the treasury (row 0 stands for it); its DEBITs name the rows that issued it.
    v_transaction_id := transaction_record(p_reference_id, 'DEPOSIT', 0, v_user.id, 'treasury', v_user.upi_id,
      p_amount, p_note, NULL, NULL, v_now);
    PERFORM treasury_issue(v_user.id, v_transaction_id, p_reference_id, p_amount, v_now);
    PERFORM ledger_append(v_user.id, v_transaction_id, p_reference_id, 'CREDIT', p_amount, v_now);
    v_code := 'completed';
    v_data := jsonb_build_object(
      'transactionId', v_transaction_id::text, 'referenceId', p_reference_id,
      'senderUpiId', 'treasury', 'receiverUpiId', v_user.upi_id,
      'amount', p_amount::text, 'status', 'COMPLETED', 'type', 'DEPOSIT', 'note', p_note, 'createdAt', v_at);
  END IF;
  RETURN jsonb_build_object('code', v_code, 'data', v_data, 'at', v_at);
END
$$;
