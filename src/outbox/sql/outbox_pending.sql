-- The relay's read: the next events to publish (outbox_messages.sql), p_limit at most, in the
-- order they must go out. The relay keeps its place in outbox_relay_position instead of marking
-- each event (a per-row update cost about 250 bytes of WAL per transfer):
--   published   a snapshot: every event whose transaction (outbox_events.xid) is visible in it
--               has been published;
--   publishing  the snapshot the relay is working towards: its events are those visible in it and
--               not in published, read in id order in chunks, done up to publishing_last_id;
--               publishing_max_id bounds the chunks' index range.
-- Snapshots follow commit order, so an event committed after another is never in an earlier
-- batch, and within one, id order is each sender's commit order (a movement takes its event id
-- while holding its accounts' locks). Events in flight when a snapshot is taken are in none of
-- the batches up to it: they come in the next.
-- Without a batch in progress a new one starts at the current snapshot; its bounds come from
-- ix_outbox_events_xid, its chunks from the primary key. The plans are fixed and never chosen by
-- the tables' statistics (docs/decisions/0011-generic-plans-for-key-lookups.md): the day's
-- partition starts empty every midnight, and a plan made then would read it whole all day.
-- The caller holds the relay lock (outbox-events.repository.ts) and calls outbox_mark_published
-- with what it published, in the same transaction.
CREATE OR REPLACE FUNCTION outbox_pending(p_limit integer)
RETURNS TABLE (id bigint, event_id uuid, event_type text, aggregate_key text, payload text)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_sort = off
AS $$
DECLARE
  v_position outbox_relay_position;
  v_first bigint;
  v_last bigint;
  v_rows integer;
BEGIN
  SELECT * INTO STRICT v_position FROM outbox_relay_position;
  IF v_position.publishing IS NULL THEN
    v_position.publishing := pg_current_snapshot();
    SELECT min(o.id), max(o.id) INTO v_first, v_last
    FROM outbox_events o
    WHERE o.xid >= pg_snapshot_xmin(v_position.published) AND o.xid < pg_snapshot_xmax(v_position.publishing)
      AND NOT pg_visible_in_snapshot(o.xid, v_position.published)
      AND pg_visible_in_snapshot(o.xid, v_position.publishing);
    -- Nothing new: the position stays (no write), and the next read looks from the same place.
    IF v_first IS NULL THEN
      RETURN;
    END IF;
    v_position.publishing_last_id := v_first - 1;
    v_position.publishing_max_id := v_last;
    UPDATE outbox_relay_position
    SET publishing = v_position.publishing, publishing_last_id = v_position.publishing_last_id,
        publishing_max_id = v_position.publishing_max_id, updated_at = now();
  END IF;

  RETURN QUERY
  SELECT m.id, m.event_id, m.event_type, m.aggregate_key, m.payload
  FROM outbox_messages() AS m
  WHERE m.id > v_position.publishing_last_id AND m.id <= v_position.publishing_max_id
    AND NOT pg_visible_in_snapshot(m.xid, v_position.published)
    AND pg_visible_in_snapshot(m.xid, v_position.publishing)
  ORDER BY m.id
  LIMIT p_limit;
  GET DIAGNOSTICS v_rows = ROW_COUNT;
  -- The batch's events are gone (their partition dropped by hand): it is over.
  IF v_rows = 0 THEN
    PERFORM outbox_mark_published(v_position.publishing_max_id, true);
  END IF;
END
$$;
