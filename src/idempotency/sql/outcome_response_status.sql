-- Generated from src/movements/movement-outcomes.ts (its unit test rewrites it with UPDATE_SQL=1):
-- the HTTP status the service answers each stored movement outcome with, kept beside the outcome in
-- idempotency_keys.response_status as the operators' one-glance summary. The movements themselves
-- return only codes and data; NULL for a code the service does not know.
CREATE OR REPLACE FUNCTION outcome_response_status(p_code text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE p_code
    WHEN 'completed' THEN 201
    WHEN 'self-transfer' THEN 400
    WHEN 'user-not-found' THEN 404
    WHEN 'insufficient-balance' THEN 422
    WHEN 'payment-request-not-open' THEN 409
    WHEN 'transaction-not-found' THEN 404
    WHEN 'not-transaction-receiver' THEN 403
    WHEN 'not-reversible' THEN 422
    WHEN 'reversal-exceeds-remaining' THEN 422
    WHEN 'hold-not-found' THEN 404
    WHEN 'not-hold-payee' THEN 403
    WHEN 'hold-not-open' THEN 409
    WHEN 'hold-exceeded' THEN 422
    WHEN 'limit-exceeded' THEN 422
    WHEN 'account-frozen' THEN 422
    WHEN 'not-transaction-payer' THEN 403
    WHEN 'dispute-window-closed' THEN 422
    WHEN 'dispute-already-open' THEN 409
    WHEN 'dispute-limit-exceeded' THEN 422
    WHEN 'dispute-not-found' THEN 404
    WHEN 'not-dispute-party' THEN 403
    WHEN 'dispute-status-conflict' THEN 409
  END
$$;
