-- One side of a movement: moves the account's balance by the entry and appends the entry, chained
-- to the account's previous one (hash over the head kept on the account row; hex to the hash
-- function, bytes in the columns). The caller already holds the account (account_locked.sql) in
-- its movement's fixed order, so the chain adds no serialisation point beyond the account itself. Users' rows stay >= 0 by their CHECK.
CREATE OR REPLACE FUNCTION ledger_append(
  p_user_id bigint,
  p_transaction_id bigint,
  p_reference_id uuid,
  p_entry_type text,
  p_amount numeric(19,4),
  p_at timestamptz
) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_account users%ROWTYPE;
  v_after numeric(19,4);
  v_hash bytea;
BEGIN
  -- Held by the caller already (account_locked.sql): taking it again costs nothing.
  v_account := account_locked(p_user_id);
  IF v_account.id IS NULL THEN
    RAISE EXCEPTION 'no account %', p_user_id USING ERRCODE = 'no_data_found';
  END IF;
  v_after := v_account.balance + CASE p_entry_type WHEN 'CREDIT' THEN p_amount ELSE -p_amount END;
  v_hash := decode(ledger_entry_hash(encode(v_account.last_entry_hash, 'hex'), p_user_id, p_reference_id, p_entry_type,
    p_amount, v_account.balance, v_after, p_at), 'hex');
  UPDATE users SET balance = v_after, version = version + 1, updated_at = p_at, last_entry_hash = v_hash
  WHERE id = p_user_id;
  INSERT INTO ledger_entries (user_id, transaction_id, transaction_reference_id, entry_type, amount,
                              balance_before, balance_after, created_at, hash)
  VALUES (p_user_id, p_transaction_id, p_reference_id, p_entry_type, p_amount,
          v_account.balance, v_after, p_at, v_hash);
END
$$;
