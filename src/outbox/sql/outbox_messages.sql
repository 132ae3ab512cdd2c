-- Every outbox event as it is published: its Kafka key and payload bytes. A plain TransferCompleted
-- event stores neither (issue 41: no second copy of its transaction row), only its transaction's id
-- and time; both are rebuilt here from that row by transfer_event_payload.sql, the function that
-- wrote them before, so the bytes are the same. Every other event (a payment's, a reversal's, the
-- events of other modules) keeps its own key and payload. The relay, the webhook claim and the
-- ledger invariants read events here; an inlined SQL function, so their filters reach the tables.
CREATE OR REPLACE FUNCTION outbox_messages()
RETURNS TABLE (
  id bigint,
  event_id uuid,
  event_type text,
  aggregate_key text,
  payload text,
  transaction_id bigint,
  created_at timestamptz,
  xid xid8
)
LANGUAGE sql STABLE AS $$
  SELECT o.id, o.event_id, o.event_type, coalesce(o.aggregate_key, t.sender_upi_id),
         coalesce(o.payload, transfer_event_payload(o.event_id, iso_millis(t.created_at), t.id, t.reference_id,
           t.sender_upi_id, t.receiver_upi_id, t.amount, t.note, NULL)),
         o.transaction_id, o.created_at, o.xid
  FROM outbox_events o
  LEFT JOIN transactions t ON t.id = o.transaction_id AND t.created_at = o.created_at
$$;
