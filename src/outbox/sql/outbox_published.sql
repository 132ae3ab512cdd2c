-- Whether the relay has published event p_id, written by transaction p_xid (outbox_events.id and
-- xid): it has published every event whose transaction is visible in its position's published
-- snapshot, and those of the batch in progress up to publishing_last_id (outbox_pending.sql). For
-- readers that ask about single events: the tests. The relay, its gauges (outbox_backlog.sql) and
-- the retention job read the position row themselves.
CREATE OR REPLACE FUNCTION outbox_published(p_xid xid8, p_id bigint) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT pg_visible_in_snapshot(p_xid, published)
         OR (publishing IS NOT NULL AND pg_visible_in_snapshot(p_xid, publishing) AND p_id <= publishing_last_id)
  FROM outbox_relay_position
$$;
