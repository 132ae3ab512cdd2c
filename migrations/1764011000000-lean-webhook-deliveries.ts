import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Less database work per webhook delivery (issue 23's throughput item, README "Webhooks"):
 * - the fan-out no longer copies the event JSON into each delivery: the claim reads it from
 *   outbox_events by event_id (its unique index). `payload` stays for rows written before, and
 *   nothing deletes outbox rows; a purge of the outbox must keep events with pending deliveries.
 * - a claim's lease has a column of its own, in no index, so the claim (attempts, last_attempt_at,
 *   leased_until) is a HOT update: one small heap record instead of a new version in every index.
 *   The free space a page keeps (fillfactor) is where those updates go.
 */
export class LeanWebhookDeliveries1764011000000 implements MigrationInterface {
  name = 'LeanWebhookDeliveries1764011000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "webhook_deliveries" ALTER COLUMN "payload" DROP NOT NULL`);
    await db.query(`ALTER TABLE "webhook_deliveries" ADD COLUMN "leased_until" timestamptz`);
    await db.query(`ALTER TABLE "webhook_deliveries" SET (fillfactor = 70)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "webhook_deliveries" RESET (fillfactor)`);
    await db.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "leased_until"`);
    await db.query(`
      UPDATE "webhook_deliveries" d SET "payload" = o."payload"
      FROM "outbox_events" o WHERE d."payload" IS NULL AND o."event_id" = d."event_id"`);
    await db.query(`DELETE FROM "webhook_deliveries" WHERE "payload" IS NULL`);
    await db.query(`ALTER TABLE "webhook_deliveries" ALTER COLUMN "payload" SET NOT NULL`);
  }
}
