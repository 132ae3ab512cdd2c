-- account_locked.sql for the account a UPI ID names (p_upi_id lower-cased, as the movements order
-- their accounts by it). Returns null fields when no account has it.
CREATE OR REPLACE FUNCTION account_locked_by_upi(p_upi_id text) RETURNS users
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
AS $$
DECLARE
  v_id bigint;
BEGIN
  SELECT id INTO v_id FROM users WHERE lower(upi_id) = p_upi_id;
  RETURN account_locked(v_id);
END
$$;
