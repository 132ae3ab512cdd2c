-- Who may capture or release a hold, and when, written once for both (hold_capture_apply.sql,
-- hold_return.sql): the hold must exist, the caller (p_owner, a lower-cased UPI ID) must be its
-- payee, and it must be HELD and not past expiresAt (the expiry job returns what is left). NULL
-- when the movement may go ahead, else {"code", "data"}.
CREATE OR REPLACE FUNCTION hold_refusal(p_hold holds, p_reference_id uuid, p_owner text) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (
  SELECT CASE
    WHEN p_hold.id IS NULL THEN
      jsonb_build_object('code', 'hold-not-found', 'data', jsonb_build_object('referenceId', p_reference_id))
    WHEN lower(p_hold.payee_upi_id) <> p_owner THEN '{"code": "not-hold-payee", "data": {}}'::jsonb
    WHEN p_hold.status <> 'HELD' OR p_hold.expires_at <= clock_timestamp() THEN
      jsonb_build_object('code', 'hold-not-open', 'data', jsonb_build_object('referenceId', p_hold.reference_id,
        'status', CASE WHEN p_hold.status = 'HELD' THEN 'EXPIRED' ELSE p_hold.status END))
  END
  );
END
$$;
