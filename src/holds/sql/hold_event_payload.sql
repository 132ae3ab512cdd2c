-- The JSON of a hold event (HoldPlaced, HoldCaptured, HoldReleased, HoldExpired), as Kafka and the
-- webhooks carry it (docs/api-guide.md, "Hold events"): the transfer event's envelope, the hold's
-- state after the movement, then p_extra's members (a capture's transaction, a return's amount).
-- PL/pgSQL so its body is checked when called, after every file is applied. json, not jsonb, so the members keep this order.
CREATE OR REPLACE FUNCTION hold_event_payload(
  p_event_id uuid,
  p_event_type text,
  p_at text,
  p_hold holds,
  p_extra json
) RETURNS text
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (
  SELECT CASE WHEN p_extra IS NULL THEN base ELSE left(base, -1) || ', ' || substr(p_extra::text, 2) END
  FROM (SELECT json_build_object(
    'eventId', p_event_id,
    'eventType', p_event_type,
    'occurredAt', p_at,
    'holdReferenceId', p_hold.reference_id,
    'payerUpiId', p_hold.payer_upi_id,
    'payeeUpiId', p_hold.payee_upi_id,
    'amount', p_hold.amount::text,
    'capturedAmount', p_hold.captured_amount::text,
    'remainingAmount', (p_hold.amount - p_hold.captured_amount)::text,
    'currency', 'INR',
    'status', p_hold.status,
    'note', p_hold.note,
    'expiresAt', iso_millis(p_hold.expires_at))::text AS base) b
  );
END
$$;
