-- The TransferCompleted event's field for a payment, appended after "note":
-- ,"paymentRequestReferenceId":"<uuid>", or nothing for a plain transfer (whose event is unchanged).
CREATE OR REPLACE FUNCTION payment_request_event_field(p_context jsonb)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(',"paymentRequestReferenceId":' || to_json((p_context->>'paymentRequestReferenceId')::uuid)::text, '')
$$;
