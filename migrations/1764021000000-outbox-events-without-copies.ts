import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Half the bytes per transfer (issue 41): a plain TransferCompleted event no longer stores a second
 * copy of its transaction row. It keeps its event id, type and time and names its transaction
 * (`transaction_id`, with `created_at` the transaction's own time); its Kafka key and payload are
 * rebuilt from that row when published (src/outbox/sql/outbox_messages.sql), the same bytes.
 * `aggregate_key` and `payload` stay for events that cannot be rebuilt (payments, reversals, other
 * modules' events) and for the rows written before.
 */
export class OutboxEventsWithoutCopies1764021000000 implements MigrationInterface {
  name = 'OutboxEventsWithoutCopies1764021000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "outbox_events" ADD COLUMN "transaction_id" bigint`);
    await db.query(`ALTER TABLE "outbox_events" ALTER COLUMN "payload" DROP NOT NULL`);
    await db.query(`ALTER TABLE "outbox_events" ALTER COLUMN "aggregate_key" DROP NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      UPDATE "outbox_events" o SET "aggregate_key" = m."aggregate_key", "payload" = m."payload"
      FROM outbox_messages() m WHERE o."payload" IS NULL AND m."id" = o."id" AND m."created_at" = o."created_at"`);
    await db.query(`ALTER TABLE "outbox_events" ALTER COLUMN "aggregate_key" SET NOT NULL`);
    await db.query(`ALTER TABLE "outbox_events" ALTER COLUMN "payload" SET NOT NULL`);
    await db.query(`ALTER TABLE "outbox_events" DROP COLUMN "transaction_id"`);
  }
}
