-- The payment-request rule of transfer_funds and transfer_funds_batch, decided before every other
-- rule: a payment of a request that is not OPEN (or has expired) is refused whatever the balance
-- or the limits would say (payment_request_refusal.sql says why). True when the transfer pays no
-- request. Locks the request row to the end of the transaction, so a cancellation cannot slip in
-- before payment_request_settle marks it PAID; the callers lock the payee's account first, so
-- two transactions never take request rows in opposite orders.
CREATE OR REPLACE FUNCTION payment_request_open(p_context jsonb)
RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  v_open boolean;
BEGIN
  IF p_context->>'paymentRequestReferenceId' IS NULL THEN
    RETURN true;
  END IF;
  SELECT status = 'OPEN' AND expires_at > clock_timestamp() INTO v_open
  FROM payment_requests WHERE reference_id = (p_context->>'paymentRequestReferenceId')::uuid
  FOR UPDATE;
  RETURN coalesce(v_open, false);
END
$$;
