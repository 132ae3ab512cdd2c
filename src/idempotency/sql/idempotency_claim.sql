-- The key rules of every money movement: claim the key, or answer what a finished request with it
-- answered. A twin still in flight holds the key uncommitted: wait for it at most 2 s (then 55P03,
-- answered 409), replay once it commits.
-- Returns the claimed row id, or NULL and the outcome to replay (code key-reused when the request
-- differs).
CREATE OR REPLACE FUNCTION idempotency_claim(
  p_owner text,
  p_idempotency_key text,
  p_request_hash text,
  p_now timestamptz,
  OUT key_id bigint,
  OUT replay jsonb
)
LANGUAGE plpgsql AS $$
DECLARE
  v_stored idempotency_keys%ROWTYPE;
BEGIN
  PERFORM set_config('lock_timeout', '2s', true);
  INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status)
  VALUES (p_owner, p_idempotency_key, p_request_hash, 'PROCESSING')
  ON CONFLICT (owner_upi_id, idempotency_key) DO NOTHING
  RETURNING id INTO key_id;
  PERFORM set_config('lock_timeout', '0', true);
  IF key_id IS NOT NULL THEN
    RETURN;
  END IF;

  SELECT * INTO v_stored FROM idempotency_keys
  WHERE owner_upi_id = p_owner AND idempotency_key = p_idempotency_key;
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
