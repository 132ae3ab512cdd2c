import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Standing instructions and their runs (README "Scheduled transfers"). The scheduler claims due
 * instructions with FOR UPDATE SKIP LOCKED on scheduled_transfers; a run's row is written in the
 * claim's transaction, so an occurrence is recorded once. The money itself moves through
 * transfer_funds under an Idempotency-Key derived from the instruction and the due time.
 */
export class ScheduledTransfers1764008500000 implements MigrationInterface {
  name = 'ScheduledTransfers1764008500000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE "scheduled_transfers" (
        "id" bigint GENERATED ALWAYS AS IDENTITY CONSTRAINT "pk_scheduled_transfers" PRIMARY KEY,
        "reference_id" uuid NOT NULL CONSTRAINT "uq_scheduled_transfers_reference_id" UNIQUE,
        "sender_upi_id" varchar(100) NOT NULL,
        "receiver_upi_id" varchar(100) NOT NULL,
        "amount" numeric(19,4) NOT NULL CONSTRAINT "ck_scheduled_transfers_amount" CHECK ("amount" > 0),
        "note" varchar(255),
        "frequency" varchar(8) NOT NULL
          CONSTRAINT "ck_scheduled_transfers_frequency" CHECK ("frequency" IN ('ONCE', 'DAILY', 'WEEKLY', 'MONTHLY')),
        "start_at" timestamptz NOT NULL,
        "end_at" timestamptz,
        "max_occurrences" integer,
        "status" varchar(10) NOT NULL DEFAULT 'ACTIVE'
          CONSTRAINT "ck_scheduled_transfers_status" CHECK ("status" IN ('ACTIVE', 'PAUSED', 'CANCELLED', 'COMPLETED')),
        -- NULL once nothing more will run (COMPLETED, CANCELLED).
        "next_run_at" timestamptz,
        "occurrences" integer NOT NULL DEFAULT 0,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now()
      )`);
    // The scheduler's claim: only active instructions, earliest due first.
    await db.query(`
      CREATE INDEX "ix_scheduled_transfers_due" ON "scheduled_transfers" ("next_run_at") WHERE "status" = 'ACTIVE'`);
    await db.query(`
      CREATE INDEX "ix_scheduled_transfers_sender" ON "scheduled_transfers" (lower("sender_upi_id"), "created_at" DESC)`);
    await db.query(`
      CREATE TABLE "scheduled_transfer_runs" (
        "scheduled_transfer_id" bigint NOT NULL
          CONSTRAINT "fk_scheduled_transfer_runs_instruction" REFERENCES "scheduled_transfers" ("id"),
        "due_at" timestamptz NOT NULL,
        "ran_at" timestamptz NOT NULL DEFAULT now(),
        "status" varchar(10) NOT NULL
          CONSTRAINT "ck_scheduled_transfer_runs_status" CHECK ("status" IN ('COMPLETED', 'FAILED', 'MISSED')),
        "transaction_reference_id" uuid,
        "problem_type" varchar(255),
        "problem_detail" text,
        -- One row per occurrence: a second writer of the same occurrence fails instead of doubling it.
        CONSTRAINT "pk_scheduled_transfer_runs" PRIMARY KEY ("scheduled_transfer_id", "due_at")
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "scheduled_transfer_runs"`);
    await db.query(`DROP TABLE "scheduled_transfers"`);
  }
}
