-- The escalation job's claim (src/disputes/dispute-escalation.job.ts): OPEN disputes past respondBy,
-- oldest first, locked with SKIP LOCKED so instances share the work, and re-read under the lock, so
-- each escalates once however many instances run. The turnaround (resolveBy) starts at respondBy.
-- Returns how many it escalated.
CREATE OR REPLACE FUNCTION dispute_escalate_due(p_resolution_seconds numeric, p_limit integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_due record;
  v_count integer := 0;
BEGIN
  FOR v_due IN
    SELECT id, respond_by FROM disputes
    WHERE status = 'OPEN' AND respond_by <= clock_timestamp()
    ORDER BY respond_by LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  LOOP
    PERFORM dispute_change(v_due.id, 'ESCALATED', NULL, NULL, 'No answer by respondBy', 'DisputeEscalated',
      v_due.respond_by + make_interval(secs => p_resolution_seconds), NULL);
    v_count := v_count + 1;
  END LOOP;
  RETURN v_count;
END
$$;
