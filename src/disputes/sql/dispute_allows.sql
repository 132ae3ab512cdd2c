-- What a dispute's status allows: the payee answers an OPEN one before respondBy, the payer
-- withdraws one not yet RESOLVED, an admin settles an ESCALATED one.
CREATE OR REPLACE FUNCTION dispute_allows(p_dispute disputes, p_action text, p_at timestamptz) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE p_action
    WHEN 'WITHDRAW' THEN p_dispute.status IN ('OPEN', 'ESCALATED')
    WHEN 'REFUND' THEN p_dispute.status = 'ESCALATED'
    WHEN 'DISMISS' THEN p_dispute.status = 'ESCALATED'
    ELSE p_dispute.status = 'OPEN' AND p_at < p_dispute.respond_by
  END
$$;
