import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Less written per webhook delivery, in the money transaction (issue 23's throughput item, README
 * "Webhooks"): the fan-out no longer copies the event JSON into each delivery, and the claim reads
 * it from outbox_events by event_id (its unique index). `payload` stays for the rows written
 * before. Nothing deletes outbox rows; a purge of the outbox must keep events with pending deliveries.
 */
export class LeanWebhookDeliveries1764011000000 implements MigrationInterface {
  name = 'LeanWebhookDeliveries1764011000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "webhook_deliveries" ALTER COLUMN "payload" DROP NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      UPDATE "webhook_deliveries" d SET "payload" = o."payload"
      FROM "outbox_events" o WHERE d."payload" IS NULL AND o."event_id" = d."event_id"`);
    await db.query(`DELETE FROM "webhook_deliveries" WHERE "payload" IS NULL`);
    await db.query(`ALTER TABLE "webhook_deliveries" ALTER COLUMN "payload" SET NOT NULL`);
  }
}
