-- A dispute as the API and its stored outcomes write it (docs/api-guide.md "Disputes"): amounts as
-- exact text, times in ISO 8601 with milliseconds; overdue is read from the clock, never stored.
-- PL/pgSQL, so that its body is bound at the first call, after every function file is applied.
CREATE OR REPLACE FUNCTION dispute_json(p_dispute disputes) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN jsonb_build_object(
    'id', p_dispute.id::text,
    'referenceId', p_dispute.reference_id,
    'transactionReferenceId', p_dispute.transaction_reference_id,
    'raisedByUpiId', p_dispute.payer_upi_id,
    'counterpartyUpiId', p_dispute.payee_upi_id,
    'reason', p_dispute.reason,
    'amount', p_dispute.amount::text,
    'description', p_dispute.description,
    'status', p_dispute.status,
    'resolution', p_dispute.resolution,
    'respondBy', iso_millis(p_dispute.respond_by),
    'resolveBy', iso_millis(p_dispute.resolve_by),
    'overdue', p_dispute.status = 'ESCALATED' AND clock_timestamp() > p_dispute.resolve_by,
    'refundTransactionReferenceId', p_dispute.refund_transaction_reference_id,
    'createdAt', iso_millis(p_dispute.created_at),
    'updatedAt', iso_millis(p_dispute.updated_at),
    'history', p_dispute.history);
END
$$;
