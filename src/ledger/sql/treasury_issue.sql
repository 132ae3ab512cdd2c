-- The treasury side of money issued to a user (an opening balance or a deposit): DEBIT entries
-- of the treasury rows, under the movement's reference. The caller holds the user's row; the
-- treasury rows are always locked after it. Usually one row issues it all: the user's own of the
-- eight, -(id % 8), when it has room, else the next with room, so registrations and deposits of
-- different users rarely wait for each other. An amount no row can take alone (each row stays
-- within numeric(19,4)) is split over the rows, locked in one fixed order (id descending), so two
-- such issues never deadlock. More than the treasury can issue in all: 22003, the answer for any
-- balance beyond numeric(19,4).
CREATE OR REPLACE FUNCTION treasury_issue(
  p_user_id bigint,
  p_transaction_id bigint,
  p_reference_id uuid,
  p_amount numeric(19,4),
  p_at timestamptz
) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  c_floor CONSTANT numeric(19,4) := -999999999999999.9999;
  v_row users%ROWTYPE;
  v_left numeric(19,4) := p_amount;
  v_take numeric(19,4);
BEGIN
  -- id <= 0 keeps these reads on the primary key, however many users there are.
  SELECT * INTO v_row FROM users
  WHERE id <= 0 AND kind = 'TREASURY' AND balance - p_amount >= c_floor
  ORDER BY id = -(p_user_id % 8) DESC, id DESC
  LIMIT 1
  FOR UPDATE;
  IF v_row.id IS NOT NULL THEN
    PERFORM ledger_append(v_row.id, p_transaction_id, p_reference_id, 'DEBIT', p_amount, p_at);
    RETURN;
  END IF;

  FOR v_row IN SELECT * FROM users WHERE id <= 0 AND kind = 'TREASURY' ORDER BY id DESC FOR UPDATE LOOP
    v_take := least(v_left, v_row.balance - c_floor);
    IF v_take > 0 THEN
      PERFORM ledger_append(v_row.id, p_transaction_id, p_reference_id, 'DEBIT', v_take, p_at);
      v_left := v_left - v_take;
    END IF;
    EXIT WHEN v_left = 0;
  END LOOP;
  IF v_left > 0 THEN
    RAISE EXCEPTION 'the treasury cannot issue % more', p_amount USING ERRCODE = '22003';
  END IF;
END
$$;
