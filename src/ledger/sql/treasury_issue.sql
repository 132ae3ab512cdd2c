-- The treasury side of money issued to a user (an opening balance or a deposit): DEBIT entries
-- of the treasury rows, under the movement's reference. The caller holds the user's account; the
-- treasury rows are always locked after it. Usually one row issues it all: the user's own of the
-- first eight, -(id % 8), when it has room, else the next with room, so registrations and
-- deposits of different users rarely wait for each other. An amount no row can take alone (each
-- row stays within numeric(19,4)) is split over the rows, locked in one fixed order (id
-- descending), so two such issues never deadlock. When every row is full the treasury opens one
-- more (the next id below), so it never runs out: one new row holds any amount numeric(19,4)
-- can carry, and the sum of all rows is still minus all money issued (issue 18: exhaustion was
-- a 500 after about 80 maximal registrations).
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
  v_new_id bigint;
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

  WHILE v_left > 0 LOOP
    -- A row another issuer opened meanwhile (committed after the loop's snapshot) is used first.
    SELECT * INTO v_row FROM users
    WHERE id <= 0 AND kind = 'TREASURY' AND balance - v_left >= c_floor
    ORDER BY id DESC LIMIT 1 FOR UPDATE;
    IF v_row.id IS NULL THEN
      SELECT min(id) - 1 INTO v_new_id FROM users WHERE id <= 0;
      INSERT INTO users (id, reference_id, name, upi_id, phone_number, balance, kind)
      OVERRIDING SYSTEM VALUE
      VALUES (v_new_id, ('00000000-0000-0000-0000-' || lpad((-v_new_id)::text, 12, '0'))::uuid, 'Treasury',
              'treasury' || v_new_id::text, '0000000000', 0, 'TREASURY')
      ON CONFLICT DO NOTHING;
      CONTINUE;
    END IF;
    PERFORM ledger_append(v_row.id, p_transaction_id, p_reference_id, 'DEBIT', v_left, p_at);
    v_left := 0;
  END LOOP;
END
$$;
