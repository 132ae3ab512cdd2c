-- Whether a movement from p_sender to p_receiver (either may be NULL: a deposit has no sender) of
-- p_amount is refused by a freeze or, for transfers (p_counts), by a limit: NULL, or the outcome
-- {"code": "account-frozen"|"limit-exceeded", "data": ...}. p_state comes from limits_begin.
CREATE OR REPLACE FUNCTION limits_refusal(p_state jsonb, p_sender bigint, p_receiver bigint, p_amount numeric,
                                          p_counts boolean DEFAULT true) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  s jsonb := p_state->(p_sender::text);
  v_max numeric;
  v_used numeric;
BEGIN
  IF p_state IS NULL THEN
    RETURN NULL;
  ELSIF (s->>'frozen')::boolean THEN
    RETURN '{"code": "account-frozen", "data": {"side": "sender"}}';
  ELSIF (p_state->(p_receiver::text)->>'frozen')::boolean THEN
    RETURN '{"code": "account-frozen", "data": {"side": "receiver"}}';
  ELSIF s IS NULL OR NOT p_counts THEN
    RETURN NULL;
  END IF;
  IF s->>'dailyCountMax' IS NOT NULL AND (s->>'countUsed')::integer + 1 > (s->>'dailyCountMax')::integer THEN
    RETURN limits_exceeded('daily-count', (s->>'dailyCountMax')::numeric, (s->>'countUsed')::numeric, s->>'resetsAt');
  END IF;
  v_max := (s->>'dailyAmountMax')::numeric;
  v_used := (s->>'amountUsed')::numeric;
  IF v_max IS NOT NULL AND v_used + p_amount > v_max THEN
    RETURN limits_exceeded('daily-amount', v_max, v_used, s->>'resetsAt');
  END IF;
  v_max := (s->>'newUserAmountMax')::numeric;
  v_used := (s->>'newUsed')::numeric;
  IF v_max IS NOT NULL AND v_used + p_amount > v_max THEN
    RETURN limits_exceeded('new-user-amount', v_max, v_used, s->>'newUntil');
  END IF;
  RETURN NULL;
END
$$;
