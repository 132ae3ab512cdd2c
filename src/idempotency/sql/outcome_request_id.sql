-- The request id an idempotency record keeps apart from its outcome: the outcome's "requestId" as a
-- uuid (16 bytes in idempotency_keys.request_id, where the JSON spent 36 characters and its name),
-- when it is a UUID's own text (lower-case, hyphenated), as every id the service mints or accepts
-- is. Then the record's outcome leaves it out (outcome_without_request_id.sql) and
-- idempotent_replay.sql puts the same text back. NULL for any other value, which stays in the outcome.
CREATE OR REPLACE FUNCTION outcome_request_id(p_outcome jsonb) RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(p_outcome->'requestId') = 'string'
                AND p_outcome->>'requestId' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
              THEN (p_outcome->>'requestId')::uuid END
$$;
