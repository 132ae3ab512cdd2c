-- Opening a dispute, under a key already claimed (open_dispute, generated from
-- src/movements/sql/movement_entry.sql.template). The payer of a TRANSFER complains within the
-- window, for at most what is not yet reversed. One payer's openings take turns on an advisory
-- lock, so NPCI's caps (10 per payer in a rolling 30 days, 5 per payer-payee pair) hold under
-- concurrency; the partial unique index keeps one dispute in progress per transfer.
-- Returns {"code", "data", "at"}. Codes: completed | transaction-not-found | not-transaction-payer |
-- not-reversible | dispute-window-closed | dispute-already-open | dispute-limit-exceeded.
CREATE OR REPLACE FUNCTION dispute_open_apply(
  p_owner text,
  p_transaction_reference_id uuid,
  p_reason text,
  p_amount numeric(19,4),
  p_description text,
  p_reference_id uuid,
  p_window_seconds numeric,
  p_response_seconds numeric,
  p_resolution_seconds numeric
) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := date_trunc('milliseconds', clock_timestamp());
  v_transfer transactions%ROWTYPE;
  v_remaining numeric(19,4);
  v_amount numeric(19,4);
  v_raised integer;
  v_pair integer;
  v_dispute disputes%ROWTYPE;
  v_code text;
  v_data jsonb := '{}';
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('disputes'), hashtext(p_owner));
  SELECT * INTO v_transfer FROM transactions WHERE reference_id = p_transaction_reference_id;
  v_remaining := v_transfer.amount - v_transfer.reversed_amount;
  v_amount := coalesce(p_amount, v_remaining);
  IF v_transfer.id IS NULL THEN
    v_code := 'transaction-not-found';
    v_data := jsonb_build_object('referenceId', p_transaction_reference_id);
  ELSIF lower(v_transfer.sender_upi_id) <> p_owner THEN
    v_code := 'not-transaction-payer';
  ELSIF v_transfer.type <> 'TRANSFER' THEN
    v_code := 'not-reversible';
    v_data := jsonb_build_object('type', v_transfer.type);
  ELSIF v_transfer.created_at + make_interval(secs => p_window_seconds) < v_now THEN
    v_code := 'dispute-window-closed';
    v_data := jsonb_build_object('closedAt', iso_millis(v_transfer.created_at + make_interval(secs => p_window_seconds)));
  ELSIF v_remaining <= 0 OR v_amount > v_remaining THEN
    v_code := 'not-reversible';
    v_data := jsonb_build_object('remaining', v_remaining::text, 'requested', v_amount::text);
  ELSIF EXISTS (SELECT 1 FROM disputes WHERE transaction_reference_id = v_transfer.reference_id
                AND status IN ('OPEN', 'ESCALATED')) THEN
    v_code := 'dispute-already-open';
  ELSE
    SELECT count(*), count(*) FILTER (WHERE payee_id = v_transfer.receiver_id) INTO v_raised, v_pair
    FROM disputes WHERE payer_id = v_transfer.sender_id AND created_at > v_now - interval '30 days';
    IF v_raised >= 10 THEN
      v_code := 'dispute-limit-exceeded';
      v_data := jsonb_build_object('cap', 'payer', 'max', 10);
    ELSIF v_pair >= 5 THEN
      v_code := 'dispute-limit-exceeded';
      v_data := jsonb_build_object('cap', 'pair', 'max', 5);
    ELSE
      INSERT INTO disputes (reference_id, transaction_reference_id, payer_id, payee_id, payer_upi_id, payee_upi_id,
                            reason, amount, description, respond_by, resolve_by, created_at, updated_at, history)
      VALUES (p_reference_id, v_transfer.reference_id, v_transfer.sender_id, v_transfer.receiver_id,
              v_transfer.sender_upi_id, v_transfer.receiver_upi_id, p_reason, v_amount, p_description,
              v_now + make_interval(secs => p_response_seconds),
              v_now + make_interval(secs => p_response_seconds + p_resolution_seconds), v_now, v_now,
              jsonb_build_array(jsonb_build_object('at', iso_millis(v_now), 'status', 'OPEN',
                'byUpiId', v_transfer.sender_upi_id, 'note', p_description)))
      ON CONFLICT (transaction_reference_id) WHERE status IN ('OPEN', 'ESCALATED') DO NOTHING
      RETURNING * INTO v_dispute;
      IF v_dispute.id IS NULL THEN
        v_code := 'dispute-already-open';
      ELSE
        PERFORM dispute_event(v_dispute, 'DisputeOpened', v_dispute.payer_upi_id, p_description, v_now);
        v_code := 'completed';
        v_data := dispute_json(v_dispute);
      END IF;
    END IF;
  END IF;
  RETURN jsonb_build_object('code', v_code, 'data', v_data, 'at', iso_millis(v_now));
END
$$;
