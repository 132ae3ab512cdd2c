-- The key rules of every money movement, read before anything is written: answer what a finished
-- request with this key answered, or let this one run. Twins are serialised on a transaction-scoped
-- advisory lock on (owner, key): a twin in flight holds it until it commits; wait for it at most
-- 2 s (then 55P03, answered 409). Once it commits, this statement's fresh snapshot (READ
-- COMMITTED) sees its stored outcome, which is replayed. A fresh key writes nothing here:
-- idempotency_finish inserts the whole record once, in the movement's transaction.
-- Returns NULL for a fresh key, else the outcome to replay (code key-reused when the request differs).
CREATE OR REPLACE FUNCTION idempotency_claim(
  p_owner text,
  p_idempotency_key text,
  p_request_hash text
) RETURNS jsonb
LANGUAGE plpgsql
SET lock_timeout = '2s'
AS $$
DECLARE
  v_stored idempotency_keys%ROWTYPE;
BEGIN
  -- The separator only keeps distinct pairs apart; two pairs sharing a hash merely wait for each other.
  PERFORM pg_advisory_xact_lock(hashtextextended(p_owner || '/' || p_idempotency_key, 0));
  SELECT * INTO v_stored FROM idempotency_record(p_owner, p_idempotency_key);
  -- A row without an outcome (none is written so: a writer that does not take this lock) is not
  -- replayed but answered 409, here, as it may sit in another day's partition than the insert's.
  IF FOUND AND v_stored.outcome IS NULL THEN
    RAISE EXCEPTION 'idempotency key % is in flight', p_idempotency_key USING ERRCODE = '55P03';
  END IF;
  RETURN CASE WHEN v_stored.outcome IS NOT NULL THEN idempotent_replay(v_stored, p_request_hash) END;
END
$$;
