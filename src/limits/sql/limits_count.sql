-- A completed transfer of p_amount by p_sender, added to the running usage inside the batch; a
-- sender to whom no daily or new-user limit applies is not counted (nothing is written for it).
CREATE OR REPLACE FUNCTION limits_count(p_state jsonb, p_sender bigint, p_amount numeric) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  s jsonb := p_state->(p_sender::text);
BEGIN
  IF s IS NULL OR (s->>'dailyAmountMax' IS NULL AND s->>'dailyCountMax' IS NULL AND s->>'newUserAmountMax' IS NULL) THEN
    RETURN p_state;
  END IF;
  RETURN p_state || jsonb_build_object(p_sender::text, s || jsonb_build_object(
    'amountUsed', (s->>'amountUsed')::numeric + p_amount,
    'countUsed', (s->>'countUsed')::integer + 1,
    'newUsed', (s->>'newUsed')::numeric + p_amount,
    'dirty', true));
END
$$;
