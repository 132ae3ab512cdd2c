-- Makes every missing partition of p_table whose range meets [p_from, p_to), and returns how many
-- it made. Money records (transactions, ledger_entries) have monthly partitions <table>_pYYYYMM,
-- the short-lived tables (outbox_events, idempotency_keys, webhook_deliveries) daily ones
-- <table>_pYYYYMMDD; bounds are UTC midnights. Idempotent, and safe when several sessions call it
-- at once: they take turns on a transaction-scoped advisory lock per table, and each checks what
-- exists under it. Creating a partition locks its parent briefly; waiting more than 5 s for that
-- lock (a long transaction on the table) fails the call, and the partitions job tries again later.
-- A day of idempotency_keys gets its own unique index on the digest of (owner_upi_id,
-- idempotency_key) (idempotency_key_digest.sql, 16 bytes where the two texts took about 60): a
-- partitioned table's unique index must hold created_at, which would make it no backstop at all
-- against a writer without the key's lock (idempotency_finish.sql); across days the lock decides.
-- The partitions job calls it for the database clock's now, a seed or a restore for past months.
-- SECURITY DEFINER: only the tables' owner may add partitions, and the service's role calls this.
CREATE OR REPLACE FUNCTION ensure_partitions(p_table text, p_from timestamptz, p_to timestamptz)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public
SET lock_timeout = '5s'
AS $$
DECLARE
  v_parent regclass := p_table::regclass;
  v_schema text := (SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                    WHERE c.oid = v_parent);
  v_unit text := partition_unit(p_table);
  v_step interval := ('1 ' || v_unit)::interval;
  v_suffix text := CASE v_unit WHEN 'month' THEN 'YYYYMM' ELSE 'YYYYMMDD' END;
  v_start timestamptz := date_trunc(v_unit, p_from, 'UTC');
  v_end timestamptz;
  v_name text;
  v_made integer := 0;
BEGIN
  IF v_unit IS NULL THEN
    RAISE EXCEPTION '% is not a partitioned table of this service', p_table USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF p_from >= p_to THEN
    RETURN 0;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended('ensure_partitions/' || v_parent::text, 0));
  WHILE v_start < p_to LOOP
    v_end := (v_start AT TIME ZONE 'UTC' + v_step) AT TIME ZONE 'UTC';
    v_name := p_table || '_p' || to_char(v_start AT TIME ZONE 'UTC', v_suffix);
    IF to_regclass(format('%I.%I', v_schema, v_name)) IS NULL THEN
      EXECUTE format('CREATE TABLE %I.%I PARTITION OF %s FOR VALUES FROM (%L) TO (%L)', v_schema, v_name, v_parent,
        v_start, v_end);
      IF p_table = 'idempotency_keys' THEN
        EXECUTE format('CREATE UNIQUE INDEX %I ON %I.%I (%I.idempotency_key_digest(owner_upi_id, idempotency_key))',
          v_name || '_key_digest', v_schema, v_name, v_schema);
      END IF;
      v_made := v_made + 1;
    END IF;
    v_start := v_end;
  END LOOP;
  RETURN v_made;
END
$$;
