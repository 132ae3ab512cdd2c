import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook endpoints and their deliveries (README "Webhooks"). Rows are written by the fan-out
 * trigger on outbox_events (src/webhooks/sql/webhook_fan_out.sql, applied after the migrations),
 * so the money path never names these tables. The public ids are UUIDs; the bigint keys stay inside.
 */
export class Webhooks1764005000000 implements MigrationInterface {
  name = 'Webhooks1764005000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE "webhook_endpoints" (
        "id" bigint GENERATED ALWAYS AS IDENTITY CONSTRAINT "pk_webhook_endpoints" PRIMARY KEY,
        "reference_id" uuid NOT NULL CONSTRAINT "uq_webhook_endpoints_reference_id" UNIQUE,
        "url" varchar(2048) NOT NULL,
        "events" text[] NOT NULL CONSTRAINT "ck_webhook_endpoints_events" CHECK (cardinality("events") > 0),
        "description" varchar(255),
        -- The signing key itself ("whsec_" + base64): signing needs it, so it cannot be a hash.
        "secret" varchar(200) NOT NULL,
        "status" varchar(16) NOT NULL DEFAULT 'ENABLED'
          CONSTRAINT "ck_webhook_endpoints_status" CHECK ("status" IN ('ENABLED', 'DISABLED')),
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "last_delivered_at" timestamptz
      )`);
    await db.query(`CREATE INDEX "ix_webhook_endpoints_created" ON "webhook_endpoints" ("created_at" DESC, "id" DESC)`);
    await db.query(`
      CREATE TABLE "webhook_deliveries" (
        "id" bigint GENERATED ALWAYS AS IDENTITY CONSTRAINT "pk_webhook_deliveries" PRIMARY KEY,
        "reference_id" uuid NOT NULL DEFAULT gen_random_uuid() CONSTRAINT "uq_webhook_deliveries_reference_id" UNIQUE,
        -- No foreign key: its check would take a KEY SHARE lock on the endpoint row in every transfer
        -- (a multixact on one hot row under load). Deleting an endpoint deletes its deliveries, and
        -- the purge removes any a concurrent fan-out wrote after that.
        "endpoint_id" bigint NOT NULL,
        "event_id" uuid NOT NULL,
        "event_type" varchar(64) NOT NULL,
        -- The event JSON as the outbox holds it: a delivery outlives any clean-up of the outbox.
        "payload" text NOT NULL,
        "status" varchar(16) NOT NULL DEFAULT 'PENDING'
          CONSTRAINT "ck_webhook_deliveries_status" CHECK ("status" IN ('PENDING', 'DELIVERED', 'FAILED')),
        "attempts" integer NOT NULL DEFAULT 0,
        -- Attempts made before the current round of the retry schedule (an admin retry starts a new one).
        "round_start" integer NOT NULL DEFAULT 0,
        -- When PENDING: when the next attempt is due; while an attempt runs, the end of its lease.
        "next_attempt_at" timestamptz NOT NULL DEFAULT now(),
        "last_attempt_at" timestamptz,
        "last_status_code" integer,
        "last_error" varchar(200),
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "finished_at" timestamptz
      )`);
    // The worker's claim, per endpoint, oldest due first, and the oldest-pending gauge; only pending rows.
    await db.query(`
      CREATE INDEX "ix_webhook_deliveries_due" ON "webhook_deliveries" ("endpoint_id", "next_attempt_at") INCLUDE ("created_at")
      WHERE "status" = 'PENDING'`);
    await db.query(`CREATE INDEX "ix_webhook_deliveries_endpoint" ON "webhook_deliveries" ("endpoint_id", "id" DESC)`);
    await db.query(`
      CREATE INDEX "ix_webhook_deliveries_finished" ON "webhook_deliveries" ("finished_at")
      WHERE "status" <> 'PENDING'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER IF EXISTS "trg_outbox_events_webhook_fan_out" ON "outbox_events"`);
    await db.query(`DROP FUNCTION IF EXISTS "webhook_fan_out"()`);
    await db.query(`DELETE FROM "sql_functions" WHERE "name" = 'webhook_fan_out'`);
    await db.query(`DROP TABLE "webhook_deliveries"`);
    await db.query(`DROP TABLE "webhook_endpoints"`);
  }
}
