-- The holds account (users.kind HOLDS, ids -1000 to -1007; migrations: holds) that keeps a payer's
-- holds: one of eight by the payer's id, so placements of different payers rarely wait for each other.
CREATE OR REPLACE FUNCTION holds_account_of(p_payer_id bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT -(1000 + p_payer_id % 8)
$$;
