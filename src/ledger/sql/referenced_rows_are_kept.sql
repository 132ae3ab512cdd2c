-- Users and transactions are history that ledger entries and transactions refer to by id (with no
-- foreign keys: the movements only name accounts they hold locked): never removed, ids never changed.
CREATE OR REPLACE FUNCTION referenced_rows_are_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is not allowed on %: ledger entries and transactions refer to its rows by id',
    TG_OP, TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END
$$;

CREATE OR REPLACE TRIGGER trg_users_no_delete
  BEFORE DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION referenced_rows_are_kept();

CREATE OR REPLACE TRIGGER trg_users_no_truncate
  BEFORE TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION referenced_rows_are_kept();

-- Per statement, and only for one naming the id: the movements' updates never pay for it.
CREATE OR REPLACE TRIGGER trg_users_no_id_update
  BEFORE UPDATE OF id ON users
  FOR EACH STATEMENT EXECUTE FUNCTION referenced_rows_are_kept();

CREATE OR REPLACE TRIGGER trg_transactions_no_delete
  BEFORE DELETE ON transactions
  FOR EACH ROW EXECUTE FUNCTION referenced_rows_are_kept();

CREATE OR REPLACE TRIGGER trg_transactions_no_truncate
  BEFORE TRUNCATE ON transactions
  FOR EACH STATEMENT EXECUTE FUNCTION referenced_rows_are_kept();

CREATE OR REPLACE TRIGGER trg_transactions_no_id_update
  BEFORE UPDATE OF id ON transactions
  FOR EACH STATEMENT EXECUTE FUNCTION referenced_rows_are_kept();
