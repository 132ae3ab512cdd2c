-- An entry inserted without its hash (a repair, a fixture: not a movement, which hashes inline
-- from the row it holds) is chained here, so the hash is never missing and never wrong. It also
-- refuses an entry naming an account or a transaction that does not exist, as the foreign keys
-- did before the movements stopped paying for them (migrations: lean money movements). Hashes are
-- hex text to ledger_entry_hash and bytes in the columns (migrations: hashes as bytes).
CREATE OR REPLACE FUNCTION ledger_entries_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_head text;
  v_id bigint;
BEGIN
  SELECT encode(a.last_entry_hash, 'hex'), a.id INTO v_head, v_id FROM account_locked(NEW.user_id) a;
  IF v_id IS NULL THEN
    RAISE EXCEPTION 'ledger entry for account %, which does not exist', NEW.user_id
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  IF NEW.transaction_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM transactions WHERE id = NEW.transaction_id) THEN
    RAISE EXCEPTION 'ledger entry for transaction %, which does not exist', NEW.transaction_id
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  NEW.hash := decode(ledger_entry_hash(v_head, NEW.user_id, NEW.transaction_reference_id, NEW.entry_type,
    NEW.amount, NEW.balance_before, NEW.balance_after, NEW.created_at), 'hex');
  UPDATE users SET last_entry_hash = NEW.hash WHERE id = NEW.user_id;
  RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER trg_ledger_entries_chain
  BEFORE INSERT ON ledger_entries
  FOR EACH ROW WHEN (NEW.hash IS NULL) EXECUTE FUNCTION ledger_entries_chain();
