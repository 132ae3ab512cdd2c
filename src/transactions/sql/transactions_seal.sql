-- Every insert path (transaction_record.sql, transfer_funds_batch's multi-row insert, a bulk
-- load) gets its content hash here. Fired ALWAYS, even under session_replication_role = replica
-- (the bench seed, logical replicas): the hash depends only on the row, so computing it again is
-- harmless. Stored as its 32 bytes (the function's hex, decoded). CREATE OR REPLACE TRIGGER resets
-- a trigger to fire on origin only, hence the ALTER.
-- A new row's reversed amount and status are not refused here; the audit checks them.
CREATE OR REPLACE FUNCTION transactions_seal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.content_hash := decode(transaction_content_hash(NEW.id, NEW.reference_id, NEW.sender_id, NEW.receiver_id,
    NEW.sender_upi_id, NEW.receiver_upi_id, NEW.amount, NEW.type, NEW.note, NEW.original_transaction_id,
    NEW.original_reference_id, NEW.created_at), 'hex');
  RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER trg_transactions_seal
  BEFORE INSERT ON transactions
  FOR EACH ROW EXECUTE FUNCTION transactions_seal();

ALTER TABLE transactions ENABLE ALWAYS TRIGGER trg_transactions_seal;
