-- Every answer to a dispute, in one transaction with the row locked: the payee accepts (a refund
-- through the reversal rules, reversal_apply, capped at what is not yet reversed) or rejects
-- (ESCALATED); the payer withdraws; an admin settles an escalated one (REFUND or DISMISS). The row
-- lock makes concurrent answers take turns, so a refund happens once; the transfer's row lock,
-- taken here before reversal_apply takes it again, serialises the refund with any reversal, so
-- together they never exceed the transfer. Repeating the answer that put the dispute where it is
-- (same actor, same result) answers the dispute again and changes nothing.
-- Returns (result, false): result is {"code", "data", "at"}. Codes: completed | dispute-not-found |
-- not-dispute-party | dispute-status-conflict | not-reversible, and reversal_apply's refusals.
CREATE OR REPLACE FUNCTION dispute_act(
  p_actor text,
  p_reference_id uuid,
  p_action text,
  p_amount numeric(19,4),
  p_note text,
  p_resolution_seconds numeric
) RETURNS TABLE (result jsonb, replayed boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := date_trunc('milliseconds', clock_timestamp());
  v_dispute disputes%ROWTYPE;
  v_target text := CASE p_action WHEN 'REJECT' THEN 'ESCALATED' ELSE 'RESOLVED' END;
  v_resolution text := CASE p_action WHEN 'REJECT' THEN NULL WHEN 'WITHDRAW' THEN 'WITHDRAWN'
                         WHEN 'DISMISS' THEN 'REJECTED' ELSE 'REFUNDED' END;
  v_remaining numeric(19,4);
  v_refund jsonb;
  v_code text;
  v_data jsonb := '{}';
BEGIN
  SELECT * INTO v_dispute FROM disputes WHERE reference_id = p_reference_id FOR UPDATE;
  IF v_dispute.id IS NULL THEN
    v_code := 'dispute-not-found';
    v_data := jsonb_build_object('referenceId', p_reference_id);
  ELSIF (p_action IN ('ACCEPT', 'REJECT') AND lower(v_dispute.payee_upi_id) <> p_actor)
     OR (p_action = 'WITHDRAW' AND lower(v_dispute.payer_upi_id) <> p_actor) THEN
    v_code := 'not-dispute-party';
    v_data := jsonb_build_object('action', p_action);
  ELSIF v_dispute.status = v_target AND v_dispute.resolution IS NOT DISTINCT FROM v_resolution
     AND lower(v_dispute.history -> -1 ->> 'byUpiId') = p_actor THEN
    v_code := 'completed';
    v_data := dispute_json(v_dispute);
  ELSIF NOT dispute_allows(v_dispute, p_action, v_now) THEN
    v_code := 'dispute-status-conflict';
    v_data := jsonb_build_object('status', v_dispute.status, 'action', p_action,
      'respondBy', iso_millis(v_dispute.respond_by));
  ELSIF p_action IN ('ACCEPT', 'REFUND') THEN
    SELECT amount - reversed_amount INTO STRICT v_remaining FROM transactions
    WHERE reference_id = v_dispute.transaction_reference_id FOR UPDATE;
    IF v_remaining <= 0 THEN
      v_code := 'not-reversible';
      v_data := jsonb_build_object('remaining', v_remaining::text, 'requested', v_dispute.amount::text);
    ELSE
      v_refund := reversal_apply(lower(v_dispute.payee_upi_id), v_dispute.transaction_reference_id,
        coalesce(p_amount, least(v_dispute.amount, v_remaining)),
        coalesce(p_note, 'Dispute ' || v_dispute.reference_id), gen_random_uuid(), gen_random_uuid());
      IF v_refund ->> 'code' = 'completed' THEN
        v_dispute := dispute_change(v_dispute.id, 'RESOLVED', 'REFUNDED', p_actor, p_note, 'DisputeResolved', NULL,
          (v_refund -> 'data' ->> 'referenceId')::uuid);
        v_code := 'completed';
        v_data := dispute_json(v_dispute);
      ELSE
        RETURN QUERY SELECT v_refund, false;
        RETURN;
      END IF;
    END IF;
  ELSIF p_action = 'REJECT' THEN
    v_dispute := dispute_change(v_dispute.id, 'ESCALATED', NULL, p_actor, p_note, 'DisputeEscalated',
      v_now + make_interval(secs => p_resolution_seconds), NULL);
    v_code := 'completed';
    v_data := dispute_json(v_dispute);
  ELSE
    v_dispute := dispute_change(v_dispute.id, 'RESOLVED', v_resolution, p_actor, p_note, 'DisputeResolved', NULL, NULL);
    v_code := 'completed';
    v_data := dispute_json(v_dispute);
  END IF;
  RETURN QUERY SELECT jsonb_build_object('code', v_code, 'data', v_data, 'at', iso_millis(v_now)), false;
END
$$;
