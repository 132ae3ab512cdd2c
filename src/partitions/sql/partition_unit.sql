-- How finely each partitioned table is cut: a month for money records, kept for years and read by
-- month (statements, archives); a day for the short-lived tables, which go a day at a time.
CREATE OR REPLACE FUNCTION partition_unit(p_table text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN CASE p_table
    WHEN 'transactions' THEN 'month'
    WHEN 'ledger_entries' THEN 'month'
    WHEN 'outbox_events' THEN 'day'
    WHEN 'idempotency_keys' THEN 'day'
    WHEN 'webhook_deliveries' THEN 'day'
  END;
END
$$;
