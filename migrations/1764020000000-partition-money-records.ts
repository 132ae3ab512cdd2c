import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * transactions and ledger_entries become PARTITION BY RANGE (created_at), one partition a month
 * (<table>_pYYYYMM, UTC bounds), converted in place: each table is renamed aside, an empty
 * partitioned one takes its name, the partitions its rows need are made by ensure_partitions
 * (src/partitions/sql/ensure_partitions.sql), the rows are copied, the old table dropped, and the
 * identity, indexes and triggers are put back on the new one. docs/operations.md says how long
 * that takes at 10 M rows.
 *
 * What partitioning changes (a unique index of a partitioned table must hold created_at):
 * - the primary keys become (id, created_at); ids still come from one identity sequence;
 * - uq_transactions_reference_id becomes (reference_id, created_at), under its old name. A reference
 *   id is a random UUID the service mints per movement, never taken from a client; the
 *   Idempotency-Key, not this index, is what keeps a retried request from writing twice;
 * - the reversal link: fk_transactions_original (original_transaction_id -> id) goes, as a foreign
 *   key needs a unique id. reversal_apply writes the link from the original row it has just locked
 *   (FOR UPDATE), rows are never deleted (trg_transactions_no_delete), and the audit reports a
 *   link to a missing transaction;
 * - ledger_entries.transaction_id / transaction_reference_id had no foreign key already
 *   (lean money movements): an entry carries its transaction's created_at, the same instant;
 * - fk_transaction_insights_transaction goes for the same reason: an insight is written from the
 *   committed transaction's event.
 */
export class PartitionMoneyRecords1764020000000 implements MigrationInterface {
  name = 'PartitionMoneyRecords1764020000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(PARTITION_UNIT);
    await db.query(ENSURE_PARTITIONS);
    await partitionInPlace(db, 'transactions', [
      `ALTER TABLE "transactions" ADD CONSTRAINT "pk_transactions" PRIMARY KEY ("id", "created_at")`,
      `CREATE UNIQUE INDEX "uq_transactions_reference_id" ON "transactions" ("reference_id", "created_at")`,
      `CREATE INDEX "ix_transactions_original" ON "transactions" ("original_transaction_id")
         WHERE "original_transaction_id" IS NOT NULL`,
      `CREATE INDEX "ix_transactions_receiver_amount" ON "transactions" ("receiver_id", "amount" DESC, "id" DESC)`,
      `CREATE INDEX "ix_transactions_receiver_created" ON "transactions" ("receiver_id", "created_at" DESC, "id" DESC)`,
      `CREATE INDEX "ix_transactions_sender_amount" ON "transactions" ("sender_id", "amount" DESC, "id" DESC)`,
      `CREATE INDEX "ix_transactions_sender_created" ON "transactions" ("sender_id", "created_at" DESC, "id" DESC)`,
    ]);
    await partitionInPlace(db, 'ledger_entries', [
      `ALTER TABLE "ledger_entries" ADD CONSTRAINT "pk_ledger_entries" PRIMARY KEY ("id", "created_at")`,
      `CREATE INDEX "ix_ledger_entries_transaction" ON "ledger_entries" ("transaction_id")
         WHERE "transaction_id" IS NOT NULL`,
      `CREATE INDEX "ix_ledger_entries_user_created" ON "ledger_entries" ("user_id", "created_at" DESC, "id" DESC)`,
    ]);
  }

  async down(): Promise<void> {
    throw new Error('Partitioned money records are not converted back: restore a backup taken before this migration');
  }
}

/** How far ahead of the database clock a conversion makes partitions, as the partitions job does. */
const AHEAD = { month: '2 months', day: '3 days' } as const;

/**
 * Converts `table` in place into PARTITION BY RANGE (created_at) with the partitions its rows and
 * the database clock need, then runs `keys` (its primary key and indexes) and puts its triggers
 * back as they were, firing state included. Foreign keys to the table go with the old table.
 */
export async function partitionInPlace(db: QueryRunner, table: string, keys: string[]): Promise<void> {
  const triggers = (await db.query(
    `SELECT pg_get_triggerdef(oid) AS definition, tgname AS name, tgenabled AS enabled
     FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal ORDER BY tgname`,
    [table],
  )) as { definition: string; name: string; enabled: string }[];
  const [{ unit }] = (await db.query('SELECT partition_unit($1) AS unit', [table])) as { unit: 'month' | 'day' }[];
  const old = `${table}_unpartitioned`;
  await db.query(`ALTER TABLE "${table}" RENAME TO "${old}"`);
  await db.query(
    `CREATE TABLE "${table}" (LIKE "${old}" INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE ("created_at")`,
  );
  await db.query(
    `SELECT ensure_partitions($1, granule, granule + $2::interval)
     FROM (SELECT DISTINCT date_trunc($3, "created_at", 'UTC') AS granule FROM "${old}") AS used`,
    [table, `1 ${unit}`, unit],
  );
  await db.query(`SELECT ensure_partitions($1, now() - $2::interval, now() + $3::interval)`, [
    table,
    `1 ${unit}`,
    AHEAD[unit],
  ]);
  await db.query(`INSERT INTO "${table}" SELECT * FROM "${old}"`);
  const [{ next }] = (await db.query(`SELECT coalesce(max("id"), 0) + 1 AS next FROM "${old}"`)) as { next: string }[];
  await db.query(`DROP TABLE "${old}" CASCADE`);
  await db.query(`ALTER TABLE "${table}" ALTER COLUMN "id" ADD GENERATED ALWAYS AS IDENTITY (START WITH ${next})`);
  for (const key of keys) await db.query(key);
  for (const trigger of triggers) {
    await db.query(trigger.definition);
    if (trigger.enabled === 'A') await db.query(`ALTER TABLE "${table}" ENABLE ALWAYS TRIGGER "${trigger.name}"`);
  }
}

// Copies of src/partitions/sql/partition_unit.sql and ensure_partitions.sql as this migration
// needs them; the files are what the database runs afterwards.
const PARTITION_UNIT = `
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
$$`;

const ENSURE_PARTITIONS = `
CREATE OR REPLACE FUNCTION ensure_partitions(p_table text, p_from timestamptz, p_to timestamptz)
RETURNS integer
LANGUAGE plpgsql
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
        EXECUTE format('CREATE UNIQUE INDEX %I ON %I.%I (owner_upi_id, idempotency_key)', v_name || '_owner_key',
          v_schema, v_name);
      END IF;
      v_made := v_made + 1;
    END IF;
    v_start := v_end;
  END LOOP;
  RETURN v_made;
END
$$`;
