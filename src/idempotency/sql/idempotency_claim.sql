-- The key rules of every money movement, read before anything is written: answer what a finished
-- request with this key answered, or let this one run. Twins are serialised on a transaction-scoped
-- advisory lock on (owner, key): a twin in flight holds it until it commits; wait for it at most
-- 2 s (then 55P03, answered 409). Once it commits, this statement's fresh snapshot (READ
-- COMMITTED) sees its stored outcome, which is replayed. A fresh key writes nothing here:
-- idempotency_finish inserts the whole record once, in the movement's transaction.
-- Returns NULLs for a fresh key; the outcome to replay (code key-reused when the request differs);
-- or, for a committed claim without an outcome (written by an earlier version) past its 2-minute
-- lease, the row id taken over, which idempotency_finish completes.
CREATE OR REPLACE FUNCTION idempotency_claim(
  p_owner text,
  p_idempotency_key text,
  p_request_hash text,
  p_now timestamptz,
  OUT key_id bigint,
  OUT replay jsonb
)
LANGUAGE plpgsql
SET lock_timeout = '2s'
AS $$
DECLARE
  v_stored idempotency_keys%ROWTYPE;
BEGIN
  -- The separator only keeps distinct pairs apart; two pairs sharing a hash merely wait for each other.
  PERFORM pg_advisory_xact_lock(hashtextextended(p_owner || '/' || p_idempotency_key, 0));
  SELECT * INTO v_stored FROM idempotency_keys
  WHERE owner_upi_id = p_owner AND idempotency_key = p_idempotency_key;
  IF v_stored.id IS NULL THEN
    RETURN;
  END IF;

  IF v_stored.status IN ('INITIATED', 'PROCESSING') THEN
    -- A committed claim without an outcome: past the 2-minute lease a retry takes it over.
    UPDATE idempotency_keys
    SET request_hash = p_request_hash, status = 'PROCESSING', updated_at = p_now
    WHERE id = v_stored.id AND updated_at < p_now - interval '2 minutes'
    RETURNING id INTO key_id;
    IF key_id IS NULL THEN
      RAISE EXCEPTION 'idempotency key % is in flight', p_idempotency_key USING ERRCODE = '55P03';
    END IF;
  ELSE
    replay := idempotent_replay(v_stored, p_request_hash);
  END IF;
END
$$;
