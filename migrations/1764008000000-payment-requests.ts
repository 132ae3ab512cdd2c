import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payment requests (README "Requests and schedules"): an invitation the payer chooses to pay. A
 * payment is a transfer whose context names the request; the hook functions the transfer
 * functions call are in src/payment-requests/sql/, applied after the migrations.
 * EXPIRED is not stored: an OPEN request past expires_at reads EXPIRED, so no job has to run.
 */
export class PaymentRequests1764008000000 implements MigrationInterface {
  name = 'PaymentRequests1764008000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE "payment_requests" (
        "id" bigint GENERATED ALWAYS AS IDENTITY CONSTRAINT "pk_payment_requests" PRIMARY KEY,
        "reference_id" uuid NOT NULL CONSTRAINT "uq_payment_requests_reference_id" UNIQUE,
        "payee_id" bigint NOT NULL,
        "payee_upi_id" varchar(100) NOT NULL,
        "payee_name" varchar(100) NOT NULL,
        -- NULL: an open amount, chosen by the payer.
        "amount" numeric(19,4) CONSTRAINT "ck_payment_requests_amount" CHECK ("amount" > 0),
        "note" varchar(255),
        "status" varchar(16) NOT NULL DEFAULT 'OPEN'
          CONSTRAINT "ck_payment_requests_status" CHECK ("status" IN ('OPEN', 'PAID', 'CANCELLED')),
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "expires_at" timestamptz NOT NULL,
        "paid_at" timestamptz,
        "transaction_reference_id" uuid,
        CONSTRAINT "ck_payment_requests_paid" CHECK (("status" = 'PAID') = ("transaction_reference_id" IS NOT NULL))
      )`);
    // The payee's list, newest first, and its keyset paging.
    await db.query(`CREATE INDEX "ix_payment_requests_payee" ON "payment_requests" ("payee_id", "id" DESC)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION IF EXISTS "payment_request_settle"(jsonb, uuid)`);
    await db.query(`DROP FUNCTION IF EXISTS "payment_request_refusal"(jsonb)`);
    await db.query(`DROP FUNCTION IF EXISTS "payment_request_event_field"(jsonb)`);
    await db.query(`DELETE FROM "sql_functions" WHERE "name" LIKE 'payment\\_request\\_%'`);
    await db.query(`DROP TABLE "payment_requests"`);
  }
}
