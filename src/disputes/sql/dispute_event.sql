-- A dispute's event in the outbox (Kafka and webhooks), keyed by the payer's UPI ID like the
-- transfer events, written in the transaction of the change it reports. The transfer is
-- disputedTransactionReferenceId: consumers deduplicate transfer events by transactionReferenceId.
CREATE OR REPLACE FUNCTION dispute_event(
  p_dispute disputes,
  p_event_type text,
  p_by text,
  p_note text,
  p_at timestamptz
) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_event_id uuid := gen_random_uuid();
BEGIN
  INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload, created_at)
  VALUES (v_event_id, p_event_type, p_dispute.payer_upi_id, json_build_object(
    'eventId', v_event_id,
    'eventType', p_event_type,
    'occurredAt', iso_millis(p_at),
    'disputeReferenceId', p_dispute.reference_id,
    'disputedTransactionReferenceId', p_dispute.transaction_reference_id,
    'raisedByUpiId', p_dispute.payer_upi_id,
    'counterpartyUpiId', p_dispute.payee_upi_id,
    'reason', p_dispute.reason,
    'amount', p_dispute.amount::text,
    'currency', 'INR',
    'status', p_dispute.status,
    'resolution', p_dispute.resolution,
    'refundTransactionReferenceId', p_dispute.refund_transaction_reference_id,
    'byUpiId', p_by,
    'note', p_note)::text, p_at);
END
$$;
