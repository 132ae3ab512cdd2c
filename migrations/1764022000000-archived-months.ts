import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Archived history (npm run archive). `archived_months` lists each month whose partitions of
 * `transactions` and `ledger_entries` were written to files and dropped, with the SHA-256 of the
 * archive's manifest; a statement that reaches one answers 422 history-archived. `ledger_checkpoints`
 * keeps, per archived month, each account's chain head at the cut (its last entry's id, hash and
 * balance after, and the month's net movement): the live audit links the first live entry to it,
 * and balances before a live period start from it. Restoring a month deletes its row, and its
 * checkpoints with it.
 */
export class ArchivedMonths1764022000000 implements MigrationInterface {
  name = 'ArchivedMonths1764022000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE "archived_months" (
        "month" date PRIMARY KEY,
        "transactions" bigint NOT NULL,
        "ledger_entries" bigint NOT NULL,
        "manifest_sha256" char(64) NOT NULL,
        "archived_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "ck_archived_months_first_day" CHECK (extract(day FROM "month") = 1)
      )`);
    await db.query(`
      CREATE TABLE "ledger_checkpoints" (
        "month" date NOT NULL REFERENCES "archived_months" ("month") ON DELETE CASCADE,
        "user_id" bigint NOT NULL,
        "entries" bigint NOT NULL,
        "last_entry_id" bigint NOT NULL,
        "hash" char(64) NOT NULL,
        "balance_after" numeric(19,4) NOT NULL,
        "net" numeric(19,4) NOT NULL,
        PRIMARY KEY ("month", "user_id")
      )`);
    await db.query(
      `CREATE INDEX "ix_ledger_checkpoints_user_entry" ON "ledger_checkpoints" ("user_id", "last_entry_id")`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "ledger_checkpoints"`);
    await db.query(`DROP TABLE "archived_months"`);
  }
}
