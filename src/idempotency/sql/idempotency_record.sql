-- The record of one (owner, key), in whichever live day's partition it is: found through each
-- day's unique index on its digest (idempotency_key_digest.sql), and only if both texts match, so
-- two pairs sharing a digest never read each other's record. Every reader of a key's record goes
-- through here (the claims, the replay at the edge); inlined by the planner into the caller's query.
CREATE OR REPLACE FUNCTION idempotency_record(p_owner text, p_idempotency_key text)
RETURNS SETOF idempotency_keys
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT * FROM idempotency_keys
  WHERE idempotency_key_digest(owner_upi_id, idempotency_key) = idempotency_key_digest(p_owner, p_idempotency_key)
    AND owner_upi_id = p_owner AND idempotency_key = p_idempotency_key
$$;
