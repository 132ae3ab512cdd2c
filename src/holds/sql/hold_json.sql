-- A hold as every answer writes it (src/holds/hold.dto.ts renders it): the movements store it as
-- their outcome's data and the reads select it, so a 201, its replay and a read agree. Amounts and
-- times as exact text; captures oldest first.
CREATE OR REPLACE FUNCTION hold_json(p_hold holds) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (
  SELECT jsonb_build_object(
    'referenceId', p_hold.reference_id,
    'payerUpiId', p_hold.payer_upi_id,
    'payeeUpiId', p_hold.payee_upi_id,
    'amount', p_hold.amount::text,
    'capturedAmount', p_hold.captured_amount::text,
    'remainingAmount', (p_hold.amount - p_hold.captured_amount)::text,
    'status', p_hold.status,
    'note', p_hold.note,
    'createdAt', iso_millis(p_hold.created_at),
    'expiresAt', iso_millis(p_hold.expires_at),
    'closedAt', iso_millis(p_hold.closed_at),
    'captures', coalesce((
      SELECT jsonb_agg(jsonb_build_object('transactionReferenceId', c.transaction_reference_id,
                                          'amount', c.amount::text, 'at', iso_millis(c.created_at)) ORDER BY c.id)
      FROM hold_captures c WHERE c.hold_id = p_hold.id), '[]'::jsonb))
  );
END
$$;
