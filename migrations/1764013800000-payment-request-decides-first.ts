import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A payment's request decides first (issue 38, finding 7): payment_request_open.sql checks and locks
 * the request before any other rule, and payment_request_settle only writes PAID once the transfer
 * completes, so it no longer answers whether it may (boolean becomes void). CREATE OR REPLACE
 * cannot change a result type: the old function is dropped and its checksum forgotten here, and
 * its file (src/payment-requests/sql) creates it anew after this migration.
 */
export class PaymentRequestDecidesFirst1764013800000 implements MigrationInterface {
  name = 'PaymentRequestDecidesFirst1764013800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION IF EXISTS "payment_request_settle"(jsonb, uuid)`);
    await db.query(`DELETE FROM "sql_functions" WHERE "name" = 'payment_request_settle'`);
  }

  // The same in reverse: the earlier files, checked out again, create the boolean one anew.
  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION IF EXISTS "payment_request_settle"(jsonb, uuid)`);
    await db.query(`DROP FUNCTION IF EXISTS "payment_request_open"(jsonb)`);
    await db.query(`DELETE FROM "sql_functions" WHERE "name" IN ('payment_request_settle', 'payment_request_open')`);
  }
}
