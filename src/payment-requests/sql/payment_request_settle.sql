-- The payment-request hook of transfer_funds and transfer_funds_batch, called last, once every
-- other rule has let the transfer through. A payment is a transfer whose context (p_context, kept
-- in its stored outcome) names the request: paymentRequestReferenceId. Marks that request PAID by
-- p_transaction_reference_id in the transfer's own transaction and says whether the transfer may
-- complete: true when it pays no request; false when the request is not OPEN or has expired
-- (payment_request_refusal.sql says why). Two payers racing wait on the request row and the second
-- finds it PAID. Every item paying a request has its payee's account locked before this runs, so
-- two transactions never take request rows in opposite orders.
CREATE OR REPLACE FUNCTION payment_request_settle(p_context jsonb, p_transaction_reference_id uuid)
RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  IF p_context->>'paymentRequestReferenceId' IS NULL THEN
    RETURN true;
  END IF;
  UPDATE payment_requests
  SET status = 'PAID', paid_at = date_trunc('milliseconds', clock_timestamp()),
      transaction_reference_id = p_transaction_reference_id
  WHERE reference_id = (p_context->>'paymentRequestReferenceId')::uuid
    AND status = 'OPEN' AND expires_at > clock_timestamp();
  RETURN FOUND;
END
$$;
