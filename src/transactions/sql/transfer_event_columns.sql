-- What a TransferCompleted outbox row stores, the one rule both transfer paths (transfer_apply.sql,
-- transfer_funds_batch.sql) follow: a plain transfer's event is its transaction row, so the row
-- keeps only transaction_id and outbox_messages.sql rebuilds key and payload from it; a payment's
-- event also names its request, which the transaction row does not hold, so it keeps its own key
-- and payload (transfer_event_payload.sql). One row; a set-returning SQL function, so the planner
-- inlines it into the caller's INSERT.
CREATE OR REPLACE FUNCTION transfer_event_columns(
  p_event_id uuid,
  p_at text,
  p_transaction_id bigint,
  p_reference_id uuid,
  p_sender_upi_id text,
  p_receiver_upi_id text,
  p_amount numeric,
  p_note text,
  p_context jsonb
) RETURNS TABLE (aggregate_key text, payload text, transaction_id bigint)
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN own THEN p_sender_upi_id END,
         CASE WHEN own THEN transfer_event_payload(p_event_id, p_at, p_transaction_id, p_reference_id,
           p_sender_upi_id, p_receiver_upi_id, p_amount, p_note, p_context) END,
         CASE WHEN NOT own THEN p_transaction_id END
  FROM (SELECT payment_request_event_field(p_context) <> '' AS own) AS event
$$;
