import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes no query needs (issue 41): ix_ledger_entries_transaction served the foreign key from
 * ledger entries to transactions, dropped long ago (decision 8). Only the audits read entries by
 * transaction, all of them at once, which a hash join does without it (pg_stat_user_indexes after
 * a bench run: one scan, by the ledger invariants). Two index entries less per transfer.
 */
export class DropUnusedIndexes1764021200000 implements MigrationInterface {
  name = 'DropUnusedIndexes1764021200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX "ix_ledger_entries_transaction"`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE INDEX "ix_ledger_entries_transaction" ON "ledger_entries" ("transaction_id") WHERE "transaction_id" IS NOT NULL`,
    );
  }
}
