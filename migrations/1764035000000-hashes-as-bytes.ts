import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The three hash columns a money movement writes: table and column. */
const HASH_COLUMNS = [
  ['ledger_entries', 'hash'],
  ['users', 'last_entry_hash'],
  ['transactions', 'content_hash'],
] as const;

const DROP_CHAIN_TRIGGER = `DROP TRIGGER "trg_ledger_entries_chain" ON "ledger_entries"`;
// As src/ledger/sql/ledger_entries_chain.sql has it: the file replaces it again after the migrations.
const CREATE_CHAIN_TRIGGER = `
  CREATE TRIGGER "trg_ledger_entries_chain" BEFORE INSERT ON "ledger_entries"
  FOR EACH ROW WHEN (NEW."hash" IS NULL) EXECUTE FUNCTION "ledger_entries_chain"()`;

/**
 * The SHA-256 hashes of the ledger chain and of the transactions as their 32 bytes (bytea)
 * instead of 64 hex characters (char(64)): 33 bytes on disk and in the WAL instead of 65, for each
 * of a transfer's two ledger entries, its two account heads and its transaction (issue 41). The
 * hashes themselves do not change: ledger_entry_hash and transaction_content_hash still compute
 * hex text from hex text, the movements store decode(hash, 'hex') and every reader reads
 * encode(column, 'hex'); archive files keep the hex text they always had.
 *
 * The chain trigger's WHEN clause names ledger_entries.hash, which PostgreSQL refuses to retype
 * under it, so it is dropped and made again. Each ALTER rewrites its table (all partitions of the
 * partitioned ones) under an ACCESS EXCLUSIVE lock.
 */
export class HashesAsBytes1764035000000 implements MigrationInterface {
  name = 'HashesAsBytes1764035000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(DROP_CHAIN_TRIGGER);
    for (const [table, column] of HASH_COLUMNS) {
      await db.query(`ALTER TABLE "${table}" ALTER COLUMN "${column}" TYPE bytea USING decode("${column}", 'hex')`);
    }
    await db.query(CREATE_CHAIN_TRIGGER);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(DROP_CHAIN_TRIGGER);
    for (const [table, column] of HASH_COLUMNS) {
      await db.query(`ALTER TABLE "${table}" ALTER COLUMN "${column}" TYPE char(64) USING encode("${column}", 'hex')`);
    }
    await db.query(CREATE_CHAIN_TRIGGER);
  }
}
