import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two indexes that cost every transfer index entries and serve no read that needs them (issue 41):
 * - uq_outbox_events_event_id (event_id, created_at): its one reader was the webhook worker, which
 *   found a delivery's event by event id. A delivery now names its event's row, outbox_event_id,
 *   and reads it through the primary key (id, created_at). Event ids stay random UUIDs the
 *   movement mints once per event. Two entries per transfer: the insert's, and the one the relay's
 *   "published" update adds (that update changes the pending index's predicate, so it is not HOT).
 * - pk_idempotency_keys (id, created_at): nothing looks a record up by id. Each day's unique index
 *   on (owner_upi_id, idempotency_key), made with its partition, is the record's key.
 * Deliveries already written get their event's row id here, so the worker finds every one.
 */
export class FewerIndexEntriesPerTransfer1764033000000 implements MigrationInterface {
  name = 'FewerIndexEntriesPerTransfer1764033000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "webhook_deliveries" ADD COLUMN "outbox_event_id" bigint`);
    await db.query(
      `UPDATE "webhook_deliveries" d SET "outbox_event_id" = o."id"
       FROM "outbox_events" o WHERE o."event_id" = d."event_id" AND o."created_at" = d."created_at"`,
    );
    await db.query(`DROP INDEX "uq_outbox_events_event_id"`);
    await db.query(`ALTER TABLE "idempotency_keys" DROP CONSTRAINT "pk_idempotency_keys"`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE "idempotency_keys" ADD CONSTRAINT "pk_idempotency_keys" PRIMARY KEY ("id", "created_at")`,
    );
    await db.query(`CREATE UNIQUE INDEX "uq_outbox_events_event_id" ON "outbox_events" ("event_id", "created_at")`);
    await db.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "outbox_event_id"`);
  }
}
