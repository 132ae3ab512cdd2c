import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The transaction list sorted by amount, read page after page by cursor: each party's rows in
 * (amount, id) order, so a page deep in the list costs what the first one does. The createdAt
 * order, the ledger, statements and balance history are already served by the
 * (owner, created_at DESC, id DESC) indexes.
 */
export class KeysetPagingIndexes1764000600000 implements MigrationInterface {
  name = 'KeysetPagingIndexes1764000600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE INDEX "ix_transactions_sender_amount" ON "transactions" ("sender_id", "amount" DESC, "id" DESC)`,
    );
    await db.query(
      `CREATE INDEX "ix_transactions_receiver_amount" ON "transactions" ("receiver_id", "amount" DESC, "id" DESC)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX "ix_transactions_receiver_amount"`);
    await db.query(`DROP INDEX "ix_transactions_sender_amount"`);
  }
}
