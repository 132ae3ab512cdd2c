-- What a finished idempotency record answers to a request carrying the same key: the stored
-- outcome, or key-reused when the request differs (its hash), or, for a row stored before
-- outcomes existed, its status and body text as they were sent (code legacy). The one reading of
-- the reuse rule: the movement functions and the service's replay while a dependency is down both
-- call it.
CREATE OR REPLACE FUNCTION idempotent_replay(p_stored idempotency_keys, p_request_hash text)
RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN p_stored.request_hash <> p_request_hash THEN jsonb_build_object('code', 'key-reused')
    WHEN p_stored.outcome IS NULL THEN jsonb_build_object('code', 'legacy', 'data',
      jsonb_build_object('status', p_stored.response_status, 'body', p_stored.response_body))
    ELSE p_stored.outcome
  END
$$;
