-- The TransferCompleted event's payload (docs/api-guide.md, "The transfer-completed event"), written
-- once: rebuilt from a plain transfer's transaction row when the event is published
-- (outbox/sql/outbox_messages.sql), and stored for a payment (transfer_event_columns.sql, which both
-- transfer paths call), so every path publishes the same bytes. A payment adds its request's reference after "note" (payment_request_event_field).
CREATE OR REPLACE FUNCTION transfer_event_payload(
  p_event_id uuid,
  p_at text,
  p_transaction_id bigint,
  p_reference_id uuid,
  p_sender_upi_id text,
  p_receiver_upi_id text,
  p_amount numeric,
  p_note text,
  p_context jsonb
) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT format(
    '{"eventId":"%s","eventType":"TransferCompleted","occurredAt":"%s","transactionId":%s,"transactionReferenceId":"%s","senderUpiId":%s,"receiverUpiId":%s,"amount":"%s","currency":"INR","note":%s%s}',
    p_event_id, p_at, p_transaction_id, p_reference_id, to_json(p_sender_upi_id)::text,
    to_json(p_receiver_upi_id)::text, p_amount, coalesce(to_json(p_note)::text, 'null'),
    payment_request_event_field(p_context))
$$;
