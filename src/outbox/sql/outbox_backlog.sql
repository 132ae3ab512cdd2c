-- What the relay has not published yet (outbox_published.sql's rule, for every event at once): how
-- many events, and the oldest one's age in seconds; for the gauges, once a second, and the bench.
-- Through ix_outbox_events_xid from the published snapshot's oldest transaction on, on a plan fixed
-- once per session: planned against the day's young partition, a plain query read the whole day
-- and called the per-event rule on every row, work that grew with the day's events.
CREATE OR REPLACE FUNCTION outbox_backlog(OUT pending integer, OUT oldest_age_seconds float8)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $$
DECLARE
  v_position outbox_relay_position;
BEGIN
  SELECT * INTO STRICT v_position FROM outbox_relay_position;
  SELECT count(*)::integer, coalesce(extract(epoch FROM now() - min(o.created_at)), 0)::float8
  INTO pending, oldest_age_seconds
  FROM outbox_events o
  WHERE o.xid >= pg_snapshot_xmin(v_position.published)
    AND NOT pg_visible_in_snapshot(o.xid, v_position.published)
    AND NOT (v_position.publishing IS NOT NULL AND pg_visible_in_snapshot(o.xid, v_position.publishing)
             AND o.id <= v_position.publishing_last_id);
END
$$;
