-- The one way a single movement writes its row of transactions (the table this module owns): the
-- transfer, a reversal and a deposit all call it, inside their own transaction, after locking the
-- accounts. Returns the new row's id. The content hash is the BEFORE INSERT trigger's (migrations:
-- tamper-evident transactions), so every insert path seals alike; transfer_funds_batch writes its
-- rows set-based, the same columns.
CREATE OR REPLACE FUNCTION transaction_record(
  p_reference_id uuid,
  p_type text,
  p_sender_id bigint,
  p_receiver_id bigint,
  p_sender_upi_id text,
  p_receiver_upi_id text,
  p_amount numeric(19,4),
  p_note text,
  p_original_transaction_id bigint,
  p_original_reference_id uuid,
  p_at timestamptz
) RETURNS bigint
LANGUAGE sql AS $$
  INSERT INTO transactions (reference_id, type, sender_id, receiver_id, sender_upi_id, receiver_upi_id, amount, note,
                            original_transaction_id, original_reference_id, created_at)
  VALUES (p_reference_id, p_type, p_sender_id, p_receiver_id, p_sender_upi_id, p_receiver_upi_id, p_amount, p_note,
          p_original_transaction_id, p_original_reference_id, p_at)
  RETURNING id
$$;
