-- The relay's mark (outbox_pending.sql): the events of the batch in progress are published up to
-- id p_last_id; p_done says the relay read fewer than it asked for, so none is left. A finished
-- batch becomes the published snapshot. One update of one row per relay run, however many events.
CREATE OR REPLACE FUNCTION outbox_mark_published(p_last_id bigint, p_done boolean)
RETURNS void
LANGUAGE sql
AS $$
  UPDATE outbox_relay_position
  SET published = CASE WHEN p_done OR p_last_id >= publishing_max_id THEN publishing ELSE published END,
      publishing = CASE WHEN p_done OR p_last_id >= publishing_max_id THEN NULL ELSE publishing END,
      publishing_last_id = CASE WHEN p_done OR p_last_id >= publishing_max_id THEN NULL ELSE p_last_id END,
      publishing_max_id = CASE WHEN p_done OR p_last_id >= publishing_max_id THEN NULL ELSE publishing_max_id END,
      updated_at = now()
  WHERE publishing IS NOT NULL
$$;
