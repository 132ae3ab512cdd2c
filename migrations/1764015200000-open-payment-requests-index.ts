import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The per-payee cap on open payment requests (PAYMENT_REQUESTS_OPEN_MAX) counts a payee's open
 * requests on every creation. This index holds only OPEN rows, by expiry: the count reads the
 * unexpired ones, at most the cap's worth, however long the payee's history grows (an expired
 * request stays OPEN in the table, as nothing stores EXPIRED, but falls outside the range).
 */
export class OpenPaymentRequestsIndex1764015200000 implements MigrationInterface {
  name = 'OpenPaymentRequestsIndex1764015200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE INDEX "ix_payment_requests_payee_open" ON "payment_requests" ("payee_id", "expires_at")
       WHERE "status" = 'OPEN'`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX "ix_payment_requests_payee_open"`);
  }
}
