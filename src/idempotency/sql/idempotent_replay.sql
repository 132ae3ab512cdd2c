-- What a finished idempotency record answers to a request carrying the same key: the stored
-- outcome, or key-reused when the request differs (its hash). The one reading of the reuse rule:
-- the movements' claims and the service's replay while a dependency is down all call it.
CREATE OR REPLACE FUNCTION idempotent_replay(p_stored idempotency_keys, p_request_hash text)
RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN p_stored.request_hash <> p_request_hash THEN jsonb_build_object('code', 'key-reused')
    ELSE p_stored.outcome
  END
$$;
