-- A registration's starting balance as a movement from the treasury: the user's opening CREDIT
-- (its balance is already on the new row) and the treasury's DEBIT, under one reference of their
-- own, in the registration's transaction. Locks: the new user, then the treasury, as deposits do.
CREATE OR REPLACE FUNCTION record_opening_balance(p_user_id bigint, p_reference_id uuid)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_user users%ROWTYPE;
  v_at timestamptz := date_trunc('milliseconds', now());
  v_hash bytea;
BEGIN
  v_user := account_locked(p_user_id);
  IF v_user.kind IS DISTINCT FROM 'USER' THEN
    RAISE EXCEPTION 'no user account %', p_user_id USING ERRCODE = 'no_data_found';
  END IF;
  IF v_user.balance = 0 THEN
    RETURN;
  END IF;
  IF v_user.last_entry_hash IS NOT NULL THEN
    RAISE EXCEPTION 'user % already has ledger entries', p_user_id;
  END IF;
  v_hash := decode(ledger_entry_hash(NULL, v_user.id, p_reference_id, 'CREDIT', v_user.balance, 0, v_user.balance, v_at),
    'hex');
  INSERT INTO ledger_entries (user_id, transaction_id, transaction_reference_id, entry_type, amount,
                              balance_before, balance_after, created_at, hash)
  VALUES (v_user.id, NULL, p_reference_id, 'CREDIT', v_user.balance, 0, v_user.balance, v_at, v_hash);
  UPDATE users SET last_entry_hash = v_hash WHERE id = v_user.id;
  PERFORM treasury_issue(v_user.id, NULL, p_reference_id, v_user.balance, v_at);
END
$$;
