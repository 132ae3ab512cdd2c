-- The payment-request write of transfer_funds and transfer_funds_batch, made only once the
-- transfer completes: marks the request its context names (paymentRequestReferenceId, kept in the
-- stored outcome) PAID by p_transaction_reference_id, in the transfer's own transaction; nothing
-- for a plain transfer. payment_request_open.sql decided first that the request is OPEN and holds
-- its row, so no rule refuses the transfer after this and the update cannot miss.
CREATE OR REPLACE FUNCTION payment_request_settle(p_context jsonb, p_transaction_reference_id uuid)
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF p_context->>'paymentRequestReferenceId' IS NULL THEN
    RETURN;
  END IF;
  UPDATE payment_requests
  SET status = 'PAID', paid_at = date_trunc('milliseconds', clock_timestamp()),
      transaction_reference_id = p_transaction_reference_id
  WHERE reference_id = (p_context->>'paymentRequestReferenceId')::uuid AND status = 'OPEN';
END
$$;
