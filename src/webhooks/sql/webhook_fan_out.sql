-- Fan-out of committed-together outbox events to webhook deliveries: once per INSERT statement on
-- outbox_events (however many rows it inserts), set-based, in the inserting transaction, so an
-- event and its deliveries commit together. With no enabled endpoint it costs one look at a tiny table.
-- A delivery names its event's row (id, created_at); the claim reads the JSON from outbox_events
-- through its primary key, so it is written once.
CREATE OR REPLACE FUNCTION webhook_fan_out() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoints WHERE status = 'ENABLED') THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_deliveries (endpoint_id, event_id, outbox_event_id, event_type, created_at, next_attempt_at)
  SELECT e.id, n.event_id, n.id, n.event_type, n.created_at, now()
  FROM new_outbox_events n
  JOIN webhook_endpoints e
    ON e.status = 'ENABLED' AND (n.event_type = ANY (e.events) OR '*' = ANY (e.events))
  ORDER BY n.id, e.id;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER trg_outbox_events_webhook_fan_out
  AFTER INSERT ON outbox_events
  REFERENCING NEW TABLE AS new_outbox_events
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_fan_out();
