import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Disputes (docs/api-guide.md "Disputes"): a payer's complaint on a transfer, answered by the
 * payee, escalated by silence, settled by an admin. The transfer is named by its reference, with
 * no foreign key, since transactions is partitioned by time. The history is a jsonb array on the
 * row, appended by the same statement that changes the status. The functions that change a
 * dispute are in src/disputes/sql/, applied after the migrations.
 */
export class Disputes1764031000000 implements MigrationInterface {
  name = 'Disputes1764031000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE "disputes" (
        "id" bigint GENERATED ALWAYS AS IDENTITY CONSTRAINT "pk_disputes" PRIMARY KEY,
        "reference_id" uuid NOT NULL CONSTRAINT "uq_disputes_reference_id" UNIQUE,
        "transaction_reference_id" uuid NOT NULL,
        "payer_id" bigint NOT NULL,
        "payee_id" bigint NOT NULL,
        "payer_upi_id" varchar(100) NOT NULL,
        "payee_upi_id" varchar(100) NOT NULL,
        "reason" varchar(32) NOT NULL CONSTRAINT "ck_disputes_reason"
          CHECK ("reason" IN ('WRONG_RECIPIENT', 'WRONG_AMOUNT', 'NOT_RECEIVED', 'DUPLICATE', 'FRAUD', 'OTHER')),
        "amount" numeric(19,4) NOT NULL CONSTRAINT "ck_disputes_amount" CHECK ("amount" > 0),
        "description" varchar(500),
        "status" varchar(16) NOT NULL DEFAULT 'OPEN'
          CONSTRAINT "ck_disputes_status" CHECK ("status" IN ('OPEN', 'ESCALATED', 'RESOLVED')),
        "resolution" varchar(16) CONSTRAINT "ck_disputes_resolution"
          CHECK ("resolution" IN ('REFUNDED', 'REJECTED', 'WITHDRAWN')),
        "respond_by" timestamptz NOT NULL,
        "resolve_by" timestamptz NOT NULL,
        "refund_transaction_reference_id" uuid,
        "created_at" timestamptz NOT NULL,
        "updated_at" timestamptz NOT NULL,
        "history" jsonb NOT NULL DEFAULT '[]',
        CONSTRAINT "ck_disputes_resolved" CHECK (("status" = 'RESOLVED') = ("resolution" IS NOT NULL)),
        CONSTRAINT "ck_disputes_refund" CHECK (("resolution" = 'REFUNDED') = ("refund_transaction_reference_id" IS NOT NULL))
      )`);
    // At most one dispute in progress per transfer: two racing opens cannot both insert.
    await db.query(
      `CREATE UNIQUE INDEX "uq_disputes_open_per_transaction" ON "disputes" ("transaction_reference_id")
       WHERE "status" IN ('OPEN', 'ESCALATED')`,
    );
    await db.query(`CREATE INDEX "ix_disputes_transaction" ON "disputes" ("transaction_reference_id")`);
    // The payer's list (raised) and the caps' counts over the last 30 days; the payee's list (received).
    await db.query(`CREATE INDEX "ix_disputes_payer" ON "disputes" ("payer_id", "id" DESC)`);
    await db.query(`CREATE INDEX "ix_disputes_payee" ON "disputes" ("payee_id", "id" DESC)`);
    // The escalation job's due OPEN disputes, the gauges' and the admin list's disputes in progress.
    await db.query(
      `CREATE INDEX "ix_disputes_in_progress" ON "disputes" ("status", "respond_by")
       WHERE "status" IN ('OPEN', 'ESCALATED')`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION IF EXISTS "open_dispute"`);
    for (const fn of [
      'dispute_act',
      'dispute_escalate_due',
      'dispute_open_apply',
      'dispute_change',
      'dispute_allows',
    ]) {
      await db.query(`DROP FUNCTION IF EXISTS "${fn}"`);
    }
    await db.query(`DROP FUNCTION IF EXISTS "dispute_event"`);
    await db.query(`DROP FUNCTION IF EXISTS "dispute_json"`);
    await db.query(`DELETE FROM "sql_functions" WHERE "name" IN ('open_dispute') OR "name" LIKE 'dispute\\_%'`);
    await db.query(`DROP TABLE "disputes"`);
  }
}
