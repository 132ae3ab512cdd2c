-- The one way a dispute changes status once opened: the row, a line of its history and its event
-- (DisputeEscalated or DisputeResolved) in the caller's transaction, with the row already locked by
-- the caller. p_resolve_by, when given, moves the turnaround deadline (an escalation starts it).
CREATE OR REPLACE FUNCTION dispute_change(
  p_id bigint,
  p_new_status text,
  p_resolution text,
  p_by text,
  p_note text,
  p_event_type text,
  p_resolve_by timestamptz,
  p_refund_reference_id uuid
) RETURNS disputes
LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := date_trunc('milliseconds', clock_timestamp());
  v_dispute disputes%ROWTYPE;
BEGIN
  UPDATE disputes
  SET status = p_new_status,
      resolution = p_resolution,
      resolve_by = coalesce(p_resolve_by, resolve_by),
      refund_transaction_reference_id = coalesce(p_refund_reference_id, refund_transaction_reference_id),
      updated_at = v_now,
      history = history || jsonb_build_array(jsonb_build_object(
        'at', iso_millis(v_now), 'status', p_new_status, 'byUpiId', p_by, 'note', p_note))
  WHERE id = p_id
  RETURNING * INTO STRICT v_dispute;
  PERFORM dispute_event(v_dispute, p_event_type, p_by, p_note, v_now);
  RETURN v_dispute;
END
$$;
