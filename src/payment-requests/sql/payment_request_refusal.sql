-- Why payment_request_settle refused a payment: the data of the outcome payment-request-not-open,
-- {"referenceId", "status"}, the status as a reader sees it (OPEN past its expiry reads EXPIRED).
CREATE OR REPLACE FUNCTION payment_request_refusal(p_context jsonb)
RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('referenceId', p_context->>'paymentRequestReferenceId', 'status',
    coalesce((SELECT CASE WHEN r.status = 'OPEN' AND r.expires_at <= clock_timestamp() THEN 'EXPIRED' ELSE r.status END
              FROM payment_requests r WHERE r.reference_id = (p_context->>'paymentRequestReferenceId')::uuid), 'UNKNOWN'))
$$;
