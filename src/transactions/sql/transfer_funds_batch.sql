-- Many transfers in one transaction (group commit): each argument is an array with one element per
-- item, in arrival order, the same fields as transfer_funds (generated from
-- src/movements/sql/movement_entry.sql.template). Returns one row per item, in item
-- order: its outcome as data ({"code", "data", "at", ...context}, the codes of transfer_funds, no
-- HTTP) and whether it is a replay. Code deferred (never stored) sends an item back to run alone.
--
-- The skeleton: claim every key (idempotency_claim_batch.sql), lock every account the fresh items
-- name in one global order (lower-cased UPI ID, byte order, as transfer_funds; account_lock.sql),
-- decide the items in order against running balances (transfer_refusal.sql: the rules of
-- transfer_apply too), write set-based (one balance update per account, multi-row inserts of
-- transactions, ledger entries chained in item order, outbox events and idempotency records),
-- then answer twins from the item they repeat.
CREATE OR REPLACE FUNCTION transfer_funds_batch(
  p_owner text[],
  p_idempotency_key text[],
  p_request_hash text[],
  p_sender_upi_id text[],
  p_receiver_upi_id text[],
  p_amount numeric[],
  p_note text[],
  p_reference_id uuid[],
  p_event_id uuid[],
  p_context jsonb[]
) RETURNS TABLE (result jsonb, replayed boolean)
LANGUAGE plpgsql
-- Its statements (and those of the functions it calls) take array parameters whose length the
-- planner sees in a custom plan; for a small batch the custom plan always looks cheaper than the
-- generic one, so without the first setting PostgreSQL plans the key claim, the account lock and
-- the limits read again on every call: 0.4 ms of a 2 ms call. Every table read here is a lookup
-- by key; without the second, a plan made while a table is small (a new database) scans it
-- whole, and a generic plan keeps doing so as the table grows (docs/decisions/0011-generic-plans-for-key-lookups.md).
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
AS $$
DECLARE
  v_count integer := cardinality(p_owner);
  v_claim record;
  v_replay jsonb[] := '{}';
  v_twin_of integer[] := '{}';
  v_defer boolean[] := '{}';
  v_outcome jsonb[] := '{}';
  v_replayed boolean[] := '{}';
  -- The fresh items, whose records this batch stores.
  f_owner text[] := '{}';
  f_key text[] := '{}';
  f_hash text[] := '{}';
  f_outcome jsonb[] := '{}';
  f_transaction bigint[] := '{}';
  v_sequence text := pg_get_serial_sequence('transactions', 'id');
  -- The locked accounts, side by side: key (lower-cased UPI ID), row, running balance and head hash.
  a_key text[];
  a_id bigint[];
  a_upi text[];
  a_balance numeric[];
  a_hash text[];
  a_moves integer[];
  v_names text[];
  v_sender integer;
  v_receiver integer;
  v_amount numeric(19,4);
  v_transaction_id bigint;
  v_sender_hash text;
  v_receiver_hash text;
  v_code text;
  v_data jsonb;
  v_now timestamptz;
  v_at text;
  -- What the batch writes, one element per row.
  t_id bigint[] := '{}';
  t_item integer[] := '{}';
  t_sender text[] := '{}';
  t_receiver text[] := '{}';
  t_data jsonb[];
  e_user bigint[] := '{}';
  e_transaction bigint[] := '{}';
  e_reference uuid[] := '{}';
  e_type text[] := '{}';
  e_amount numeric[] := '{}';
  e_before numeric[] := '{}';
  e_after numeric[] := '{}';
  e_hash text[] := '{}';
  v_limits jsonb; -- src/limits/sql: freezes and limits, running per sender through the batch
  v_refusal jsonb;
BEGIN
  FOR v_claim IN SELECT * FROM idempotency_claim_batch(p_owner, p_idempotency_key, p_request_hash) LOOP
    v_replay := v_replay || v_claim.replay;
    v_twin_of := v_twin_of || v_claim.twin_of;
    v_defer := v_defer || v_claim.defer;
  END LOOP;

  -- Every account a fresh item names, locked at once, in the order every movement locks accounts.
  SELECT coalesce(array_agg(DISTINCT lower(name)), '{}') INTO v_names
  FROM generate_subscripts(p_owner, 1) AS i, LATERAL (VALUES (p_sender_upi_id[i]), (p_receiver_upi_id[i])) AS n(name)
  WHERE v_replay[i] IS NULL AND v_twin_of[i] IS NULL AND NOT v_defer[i];
  -- Users' accounts only (src/ledger/sql/account_lock.sql); a name of a system account, which no
  -- request can give, is no account here.
  PERFORM account_lock(held.id)
  FROM (SELECT id FROM users WHERE lower(upi_id) = ANY (v_names) AND kind = 'USER' ORDER BY lower(upi_id) COLLATE "C")
    AS held;
  -- Read once all are held: their last committed state.
  SELECT array_agg(k ORDER BY k COLLATE "C"), array_agg(id ORDER BY k COLLATE "C"),
         array_agg(upi_id ORDER BY k COLLATE "C"), array_agg(balance ORDER BY k COLLATE "C"),
         array_agg(encode(last_entry_hash, 'hex') ORDER BY k COLLATE "C"), array_agg(0 ORDER BY k COLLATE "C")
  INTO a_key, a_id, a_upi, a_balance, a_hash, a_moves
  FROM (SELECT lower(upi_id) AS k, id, upi_id, balance, last_entry_hash FROM users
        WHERE lower(upi_id) = ANY (v_names) AND kind = 'USER') AS locked;

  -- One time for the batch, taken once its accounts are locked: entries carry commit order.
  v_now := date_trunc('milliseconds', clock_timestamp());
  v_at := iso_millis(v_now);
  v_limits := limits_begin(a_id, v_now);

  FOR i IN 1 .. v_count LOOP
    v_outcome := v_outcome || NULL::jsonb;
    v_replayed := v_replayed || false;
    IF v_replay[i] IS NOT NULL THEN
      v_outcome[i] := v_replay[i];
      v_replayed[i] := v_replay[i]->>'code' <> 'key-reused';
      CONTINUE;
    END IF;
    CONTINUE WHEN v_twin_of[i] IS NOT NULL;
    IF v_defer[i] THEN
      v_outcome[i] := '{"code": "deferred"}';
      CONTINUE;
    END IF;

    v_amount := p_amount[i];
    v_data := '{}';
    v_sender := array_position(a_key, lower(p_sender_upi_id[i]));
    v_receiver := array_position(a_key, lower(p_receiver_upi_id[i]));
    -- The rules of transfer_apply, from the same function, against the batch's running state.
    v_refusal := transfer_refusal(p_context[i], p_sender_upi_id[i], p_receiver_upi_id[i], a_id[v_sender],
      a_id[v_receiver], a_balance[v_sender], v_amount, v_limits);
    IF v_refusal IS NOT NULL THEN
      v_code := v_refusal->>'code';
      v_data := v_refusal->'data';
    ELSE
      v_code := 'completed';
      -- Only now, once every rule let the item through: a refused item leaves its request OPEN.
      PERFORM payment_request_settle(p_context[i], p_reference_id[i]);
      v_transaction_id := nextval(v_sequence);
      -- Each entry chains to its account's running head: the hash chains follow item order.
      v_sender_hash := ledger_entry_hash(a_hash[v_sender], a_id[v_sender], p_reference_id[i], 'DEBIT',
        v_amount, a_balance[v_sender], a_balance[v_sender] - v_amount, v_now);
      v_receiver_hash := ledger_entry_hash(a_hash[v_receiver], a_id[v_receiver], p_reference_id[i], 'CREDIT',
        v_amount, a_balance[v_receiver], a_balance[v_receiver] + v_amount, v_now);
      t_id := t_id || v_transaction_id;
      t_item := t_item || i;
      t_sender := t_sender || a_upi[v_sender];
      t_receiver := t_receiver || a_upi[v_receiver];
      e_user := e_user || a_id[v_sender] || a_id[v_receiver];
      e_transaction := e_transaction || v_transaction_id || v_transaction_id;
      e_reference := e_reference || p_reference_id[i] || p_reference_id[i];
      e_type := e_type || 'DEBIT'::text || 'CREDIT'::text;
      e_amount := e_amount || v_amount || v_amount;
      e_before := e_before || a_balance[v_sender] || a_balance[v_receiver];
      e_after := e_after || (a_balance[v_sender] - v_amount) || (a_balance[v_receiver] + v_amount);
      e_hash := e_hash || v_sender_hash || v_receiver_hash;
      a_balance[v_sender] := a_balance[v_sender] - v_amount;
      a_balance[v_receiver] := a_balance[v_receiver] + v_amount;
      a_hash[v_sender] := v_sender_hash;
      a_hash[v_receiver] := v_receiver_hash;
      a_moves[v_sender] := a_moves[v_sender] + 1;
      a_moves[v_receiver] := a_moves[v_receiver] + 1;
      v_limits := CASE WHEN v_limits IS NULL THEN NULL ELSE limits_count(v_limits, a_id[v_sender], v_amount) END;
      -- Its data is read from the row once it is written, below.
    END IF;
    v_outcome[i] := jsonb_build_object('code', v_code, 'data', v_data, 'at', v_at) || coalesce(p_context[i], '{}');
    f_owner := f_owner || p_owner[i];
    f_key := f_key || p_idempotency_key[i];
    f_hash := f_hash || p_request_hash[i];
    f_outcome := f_outcome || v_outcome[i];
    f_transaction := f_transaction || CASE WHEN v_code = 'completed' THEN v_transaction_id END;
  END LOOP;

  -- One write per account touched, however many items moved it (a hot payee is written once).
  UPDATE users u SET balance = a.balance, version = u.version + a.moves, updated_at = v_now,
                     last_entry_hash = decode(a.hash, 'hex')
  FROM unnest(a_id, a_balance, a_hash, a_moves) AS a(id, balance, hash, moves)
  WHERE u.id = a.id AND a.moves > 0;

  -- A completed item's data is its row's (transaction_outcome_data.sql, what a replay rebuilds).
  WITH written AS (
    INSERT INTO transactions (id, reference_id, sender_id, receiver_id, sender_upi_id, receiver_upi_id, amount, note,
                              created_at)
    OVERRIDING SYSTEM VALUE
    SELECT t.id, p_reference_id[t.i], e_user[2 * t.n - 1], e_user[2 * t.n], t.sender, t.receiver, e_amount[2 * t.n],
           p_note[t.i], v_now
    FROM unnest(t_id, t_item, t_sender, t_receiver) WITH ORDINALITY AS t(id, i, sender, receiver, n)
    ORDER BY t.n
    RETURNING id, transaction_outcome_data(transactions.*) AS data
  )
  SELECT array_agg(w.data ORDER BY t.n) INTO t_data
  FROM unnest(t_id) WITH ORDINALITY AS t(id, n) JOIN written w ON w.id = t.id;
  FOR k IN 1 .. cardinality(t_id) LOOP
    v_outcome[t_item[k]] := v_outcome[t_item[k]] || jsonb_build_object('data', t_data[k]);
  END LOOP;

  -- Ids follow the order rows are inserted, so each account's chain runs in item order.
  INSERT INTO ledger_entries (user_id, transaction_id, transaction_reference_id, entry_type, amount, balance_before,
                              balance_after, created_at, hash)
  SELECT e.u, e.t, e.r, e.ty, e.a, e.b, e.af, v_now, decode(e.h, 'hex')
  FROM unnest(e_user, e_transaction, e_reference, e_type, e_amount, e_before, e_after, e_hash)
    WITH ORDINALITY AS e(u, t, r, ty, a, b, af, h, n)
  ORDER BY e.n;

  -- The event is a contract of its own, not an HTTP body; in item order, so each sender's order holds.
  INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload, transaction_id, created_at)
  SELECT p_event_id[t.i], 'TransferCompleted', e.aggregate_key, e.payload, e.transaction_id, v_now
  FROM unnest(t_id, t_item, t_sender, t_receiver) WITH ORDINALITY AS t(id, i, sender, receiver, n),
       LATERAL transfer_event_columns(p_event_id[t.i], v_at, t.id, p_reference_id[t.i], t.sender, t.receiver,
         e_amount[2 * t.n], p_note[t.i], p_context[t.i]) AS e
  ORDER BY t.n;

  PERFORM limits_finish(v_limits) WHERE v_limits IS NOT NULL;
  IF cardinality(f_owner) > 0 THEN
    PERFORM idempotency_finish_batch(f_owner, f_key, f_hash, f_outcome, f_transaction);
  END IF;

  -- A repeated key answers as a twin does: the first item's outcome, replayed, or key-reused.
  FOR i IN 1 .. v_count LOOP
    CONTINUE WHEN v_twin_of[i] IS NULL OR v_replay[i] IS NOT NULL;
    IF v_outcome[v_twin_of[i]]->>'code' = 'deferred' THEN
      v_outcome[i] := v_outcome[v_twin_of[i]];
    ELSIF p_request_hash[i] <> p_request_hash[v_twin_of[i]] THEN
      v_outcome[i] := '{"code": "key-reused"}';
    ELSE
      v_outcome[i] := v_outcome[v_twin_of[i]];
      v_replayed[i] := true;
    END IF;
  END LOOP;

  RETURN QUERY SELECT o.result, o.replayed FROM unnest(v_outcome, v_replayed) WITH ORDINALITY AS o(result, replayed, n)
  ORDER BY o.n;
END
$$;
