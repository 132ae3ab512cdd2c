-- An account, read once this transaction holds it (a user's: account_lock.sql). The system
-- accounts (treasury, holds) keep their row locks: treasury_issue picks its rows with FOR UPDATE
-- under conditions PostgreSQL re-checks on the locked row, and their writers all lock them so.
-- Returns null fields when there is no such account. Its reads are by key on plans fixed once per
-- session, whatever the table's size then (docs/decisions/0011-generic-plans-for-key-lookups.md).
CREATE OR REPLACE FUNCTION account_locked(p_id bigint) RETURNS users
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
AS $$
DECLARE
  v_account users%ROWTYPE;
BEGIN
  PERFORM account_lock(p_id);
  SELECT * INTO v_account FROM users WHERE id = p_id;
  IF v_account.kind IS DISTINCT FROM 'USER' THEN
    SELECT * INTO v_account FROM users WHERE id = p_id FOR UPDATE;
  END IF;
  RETURN v_account;
END
$$;
