-- A completed movement's outcome data, read from the transaction row it wrote: the fields
-- transfer_apply, transfer_funds_batch, reversal_apply and deposit_apply return for it (ids and
-- amounts as text). Only fields the transactions trigger never lets change are read, and a
-- reversal or deposit was COMPLETED when it answered, so the same row gives the same data for
-- ever. The idempotency record keeps the transaction's id instead of this copy and rebuilds it on
-- replay (idempotency/sql/idempotency_stored_outcome.sql, idempotent_replay.sql).
CREATE OR REPLACE FUNCTION transaction_outcome_data(p_transaction transactions)
RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
           'transactionId', (p_transaction).id::text, 'referenceId', (p_transaction).reference_id,
           'senderUpiId', (p_transaction).sender_upi_id, 'receiverUpiId', (p_transaction).receiver_upi_id,
           'amount', (p_transaction).amount::text, 'note', (p_transaction).note,
           'createdAt', iso_millis((p_transaction).created_at))
         || CASE WHEN (p_transaction).type = 'TRANSFER' THEN '{}'::jsonb
                 ELSE jsonb_build_object('status', 'COMPLETED', 'type', (p_transaction).type) END
         || CASE WHEN (p_transaction).original_reference_id IS NULL THEN '{}'::jsonb
                 ELSE jsonb_build_object('originalReferenceId', (p_transaction).original_reference_id) END
$$;
