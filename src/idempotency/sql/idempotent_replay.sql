-- What a finished idempotency record answers to a request carrying the same key: the stored
-- outcome, or key-reused when the request differs (its hash: hex from the service, 32 bytes stored). The one reading of the reuse rule:
-- the movements' claims and the service's replay while a dependency is down all call it. A request
-- id kept apart as a uuid (outcome_request_id.sql) goes back into the outcome as the same text. An
-- outcome kept without its data and time (idempotency_stored_outcome.sql) gets both back from its
-- transaction row, the same JSON. That row was written in the record's transaction, so never before
-- the record's time: the bound (a day of slack) spares the lookup every older month. Were the row
-- ever gone, the data is null: the key still replays, it never runs again.
CREATE OR REPLACE FUNCTION idempotent_replay(p_stored idempotency_keys, p_request_hash text)
RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN p_stored.request_hash <> decode(p_request_hash, 'hex') THEN jsonb_build_object('code', 'key-reused')
    ELSE p_stored.outcome
      || CASE WHEN p_stored.request_id IS NULL THEN '{}'::jsonb
              ELSE jsonb_build_object('requestId', p_stored.request_id::text) END
      || CASE WHEN p_stored.transaction_id IS NULL THEN '{}'::jsonb
              ELSE coalesce((
                SELECT jsonb_build_object('at', iso_millis(t.created_at), 'data', transaction_outcome_data(t))
                FROM transactions t
                WHERE t.id = p_stored.transaction_id AND t.created_at >= p_stored.created_at - interval '1 day'),
                jsonb_build_object('data', null)) END
  END
$$;
