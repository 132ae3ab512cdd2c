-- Placing a hold, under a key already claimed (place_hold, generated from
-- src/movements/sql/movement_entry.sql.template): every transfer rule (transfer_refusal.sql: self,
-- unknown payee, frozen accounts, limits, balance) with both accounts locked in the transfer's
-- order, then the amount moves from the payer to the hold's holds account (a DEBIT and a CREDIT
-- under the hold's referenceId, no transactions row: a hold is not a transfer), the hold is
-- written, counted as a transfer of its amount by the limits, and HoldPlaced goes to the outbox.
-- The holds account row is locked last, after the users' rows, by every hold movement.
-- Returns {"code", "data", "at"}; data is the hold (hold_json.sql) when completed.
CREATE OR REPLACE FUNCTION hold_place_apply(
  p_payer_upi_id text,
  p_payee_upi_id text,
  p_amount numeric(19,4),
  p_note text,
  p_expires_in_seconds integer,
  p_reference_id uuid,
  p_event_id uuid,
  p_context jsonb
) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_first text := lower(p_payer_upi_id);
  v_second text := lower(p_payee_upi_id);
  v_locked_first users%ROWTYPE;
  v_locked_second users%ROWTYPE;
  v_payer users%ROWTYPE;
  v_payee users%ROWTYPE;
  v_hold holds%ROWTYPE;
  v_now timestamptz := date_trunc('milliseconds', now());
  v_at text := iso_millis(v_now);
  v_limits jsonb;
  v_refusal jsonb;
BEGIN
  IF v_first <> v_second THEN
    IF v_first COLLATE "C" > v_second COLLATE "C" THEN
      v_first := lower(p_payee_upi_id);
      v_second := lower(p_payer_upi_id);
    END IF;
    SELECT * INTO v_locked_first FROM account_locked_by_upi(v_first) WHERE kind = 'USER';
    SELECT * INTO v_locked_second FROM account_locked_by_upi(v_second) WHERE kind = 'USER';
    IF v_first = lower(p_payer_upi_id) THEN
      v_payer := v_locked_first;
      v_payee := v_locked_second;
    ELSE
      v_payer := v_locked_second;
      v_payee := v_locked_first;
    END IF;
  END IF;

  v_limits := CASE WHEN lower(p_payer_upi_id) <> lower(p_payee_upi_id)
                   THEN limits_begin(ARRAY[v_payer.id, v_payee.id], v_now) END;
  v_refusal := transfer_refusal(p_context, p_payer_upi_id, p_payee_upi_id, v_payer.id, v_payee.id,
    v_payer.balance, p_amount, v_limits);
  IF v_refusal IS NOT NULL THEN
    RETURN v_refusal || jsonb_build_object('at', v_at);
  END IF;

  v_now := date_trunc('milliseconds', clock_timestamp());
  v_at := iso_millis(v_now);
  INSERT INTO holds (reference_id, payer_id, payer_upi_id, payee_id, payee_upi_id, account_id, amount, note,
                     created_at, expires_at)
  VALUES (p_reference_id, v_payer.id, v_payer.upi_id, v_payee.id, v_payee.upi_id, holds_account_of(v_payer.id),
          p_amount, p_note, v_now, v_now + make_interval(secs => p_expires_in_seconds))
  RETURNING * INTO v_hold;
  PERFORM ledger_append(v_payer.id, NULL, p_reference_id, 'DEBIT', p_amount, v_now);
  PERFORM ledger_append(v_hold.account_id, NULL, p_reference_id, 'CREDIT', p_amount, v_now);
  INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload, created_at)
  VALUES (p_event_id, 'HoldPlaced', v_payer.upi_id, hold_event_payload(p_event_id, 'HoldPlaced', v_at, v_hold, NULL),
          v_now);
  PERFORM limits_finish(limits_count(v_limits, v_payer.id, p_amount)) WHERE v_limits IS NOT NULL;
  RETURN jsonb_build_object('code', 'completed', 'data', hold_json(v_hold), 'at', v_at);
END
$$;
