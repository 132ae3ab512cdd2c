-- The key rules of a batch of money movements (idempotency_claim.sql for many items at once), read
-- before anything is written. Returns one row per item, in item order:
--   replay:  the stored outcome to answer (code key-reused when the request differs);
--   twin_of: the ordinal of an earlier item of this batch with the same key: without a replay, it
--            is answered as a twin is today, from that item's outcome, once the batch decided it;
--   defer:   the key is held by a transaction in flight: the item leaves the batch and runs
--            alone, through its single function, which waits for the key (2 s at most, then 409).
-- An item with none of them is fresh: the batch runs it and idempotency_finish_batch stores it.
-- Keys are locked with try-locks, one statement, in the locks' own order: the batch never waits on
-- a key, so a twin in flight elsewhere delays only itself, never its neighbours.
CREATE OR REPLACE FUNCTION idempotency_claim_batch(
  p_owner text[],
  p_idempotency_key text[],
  p_request_hash text[]
) RETURNS TABLE (replay jsonb, twin_of integer, defer boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_busy bigint[];
BEGIN
  -- The same lock numbers as idempotency_claim, so a batch and a single movement exclude each other.
  SELECT coalesce(array_agg(lock_id), '{}') INTO v_busy
  FROM (SELECT lock_id FROM (
          SELECT DISTINCT hashtextextended(o || '/' || k, 0) AS lock_id
          FROM unnest(p_owner, p_idempotency_key) AS x(o, k)
          ORDER BY 1) AS keys
        WHERE NOT pg_try_advisory_xact_lock(lock_id)) AS busy;

  RETURN QUERY
  WITH items AS (
    SELECT x.o, x.k, x.h, x.n::integer AS n, hashtextextended(x.o || '/' || x.k, 0) AS lock_id,
           min(x.n::integer) OVER (PARTITION BY x.o, x.k) AS first
    FROM unnest(p_owner, p_idempotency_key, p_request_hash) WITH ORDINALITY AS x(o, k, h, n)
  )
  SELECT
    CASE WHEN s.outcome IS NOT NULL THEN idempotent_replay(s, i.h) END,
    CASE WHEN i.first < i.n THEN i.first END,
    -- A row without an outcome (idempotency_claim.sql) sends its item alone, to its 409.
    i.lock_id = ANY (v_busy) OR (s.created_at IS NOT NULL AND s.outcome IS NULL)
  FROM items i
  LEFT JOIN LATERAL idempotency_record(i.o, i.k) AS s ON true
  ORDER BY i.n;
END
$$;
