-- What an idempotency record's outcome keeps once its request id is kept apart as a uuid
-- (outcome_request_id.sql): the outcome without "requestId"; an outcome whose request id is not a
-- UUID's text keeps it.
CREATE OR REPLACE FUNCTION outcome_without_request_id(p_outcome jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN outcome_request_id(p_outcome) IS NULL THEN p_outcome ELSE p_outcome - 'requestId' END
$$;
