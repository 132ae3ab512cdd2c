-- The relay's read: the oldest unpublished events as published (outbox_messages.sql), in id order
-- (commit order per sender), p_limit at most. The plan is made once per connection and never
-- chosen by the tables' statistics (docs/decisions/0011-generic-plans-for-key-lookups.md): the
-- day's outbox partition starts empty every midnight, and a plan made then, or planned afresh
-- against a partition whose statistics lag (the relay's own updates leave dead entries behind), read
-- the whole partition and sorted it, 85-237 ms per read under load instead of about 1 ms. Only
-- ix_outbox_events_pending, merged across partitions in id order, and each transaction by its key.
CREATE OR REPLACE FUNCTION outbox_pending(p_limit integer)
RETURNS TABLE (id bigint, created_at text, event_id uuid, event_type text, aggregate_key text, payload text)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_sort = off
AS $$
BEGIN
  RETURN QUERY
  SELECT m.id, m.created_at::text, m.event_id, m.event_type, m.aggregate_key, m.payload
  FROM outbox_messages() AS m
  WHERE m.published_at IS NULL
  ORDER BY m.id
  LIMIT p_limit;
END
$$;
