-- Retention by dropping whole partitions, never by DELETE: each partition of p_table whose range
-- ended p_keep ago or earlier goes, unless a row in it is still in use:
--   idempotency_keys:   none is (a key is answered for p_keep at least);
--   outbox_events:      an unpublished event, or one a pending webhook delivery still reads;
--   webhook_deliveries: a pending delivery, or one finished within p_keep (an admin's retry).
-- Such a partition stays, whole, until a later run finds it done. Returns how many went.
-- SECURITY DEFINER: only the tables' owner may drop them, and the service's role calls this. The
-- parent is locked first (dropping a partition needs it exclusively; taking it before the check
-- keeps a row from changing in between); waiting more than 2 s for it fails the call, and the
-- retention job tries again at its next run.
CREATE OR REPLACE FUNCTION drop_expired_partitions(p_table text, p_keep interval)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public
SET lock_timeout = '2s'
AS $$
DECLARE
  v_partition record;
  v_busy boolean;
  v_dropped integer := 0;
BEGIN
  IF p_table NOT IN ('idempotency_keys', 'outbox_events', 'webhook_deliveries') THEN
    RAISE EXCEPTION '% is not kept for a limited time', p_table USING ERRCODE = 'invalid_parameter_value';
  END IF;
  -- Instances running this at once take turns; the later one finds the partitions gone.
  PERFORM pg_advisory_xact_lock(hashtextextended('drop_expired_partitions/' || p_table, 0));
  FOR v_partition IN
    SELECT * FROM partition_ranges(p_table) WHERE range_end <= now() - p_keep ORDER BY range_end
  LOOP
    EXECUTE format('LOCK TABLE %I IN ACCESS EXCLUSIVE MODE', p_table);
    v_busy := CASE p_table
      WHEN 'outbox_events' THEN
        -- Unpublished: not visible in the relay's published snapshot (outbox_pending.sql), found
        -- through ix_outbox_events_xid from that snapshot's oldest transaction on.
        EXISTS (SELECT 1 FROM outbox_events o, outbox_relay_position p
                WHERE o.created_at >= v_partition.range_start AND o.created_at < v_partition.range_end
                  AND o.xid >= pg_snapshot_xmin(p.published) AND NOT pg_visible_in_snapshot(o.xid, p.published))
        OR EXISTS (SELECT 1 FROM webhook_deliveries
                   WHERE created_at >= v_partition.range_start AND created_at < v_partition.range_end
                     AND status = 'PENDING')
      WHEN 'webhook_deliveries' THEN
        EXISTS (SELECT 1 FROM webhook_deliveries
                WHERE created_at >= v_partition.range_start AND created_at < v_partition.range_end
                  AND (status = 'PENDING' OR finished_at > now() - p_keep))
      ELSE false
    END;
    IF NOT v_busy THEN
      EXECUTE format('DROP TABLE %I.%I', v_partition.schema_name, v_partition.partition_name);
      v_dropped := v_dropped + 1;
    END IF;
  END LOOP;
  RETURN v_dropped;
END
$$;
