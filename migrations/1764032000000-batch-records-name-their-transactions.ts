import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The group commit's idempotency records name their transactions directly: transfer_funds_batch
 * reads each completed item's data from the row it inserts and hands idempotency_finish_batch the
 * transaction ids, so the records no longer re-read every row to find out (a fifth of the batch's
 * time). A new argument is a new signature: the old function is dropped and its checksum forgotten
 * here; its file (src/idempotency/sql) creates the new one after this migration.
 */
export class BatchRecordsNameTheirTransactions1764032000000 implements MigrationInterface {
  name = 'BatchRecordsNameTheirTransactions1764032000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION IF EXISTS "idempotency_finish_batch"(text[], text[], text[], jsonb[])`);
    await db.query(`DELETE FROM "sql_functions" WHERE "name" = 'idempotency_finish_batch'`);
  }

  // The same in reverse: the earlier files, checked out again, create the four-argument one anew.
  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION IF EXISTS "idempotency_finish_batch"(text[], text[], text[], jsonb[], bigint[])`);
    await db.query(`DELETE FROM "sql_functions" WHERE "name" = 'idempotency_finish_batch'`);
  }
}
