import type { MigrationInterface, QueryRunner } from 'typeorm';
import { partitionInPlace } from './1764020000000-partition-money-records';

/**
 * outbox_events, idempotency_keys and webhook_deliveries become PARTITION BY RANGE (created_at),
 * one partition a day (<table>_pYYYYMMDD, UTC bounds), converted in place like the money records.
 * Their rows go by dropping whole partitions (src/partitions/retention.job.ts), never by DELETE.
 *
 * What partitioning changes:
 * - the primary keys become (id, created_at);
 * - uq_outbox_events_event_id becomes (event_id, created_at): an event id is a random UUID the
 *   movement mints, once per event. A webhook delivery carries its event's created_at, so the
 *   delivery worker reads the event's JSON from one partition;
 * - uq_idempotency_keys_owner_key goes from the parent: a partitioned unique index must hold
 *   created_at, and (owner, key, created_at) would let a writer that does not take the key's lock
 *   write a twin. Each daily partition has its own unique index on (owner_upi_id, idempotency_key)
 *   instead, made with it by ensure_partitions (<partition>_owner_key), which also serves the
 *   look-ups. Across days, the key's transaction-scoped advisory lock, which every writer takes
 *   (idempotency_claim, idempotency_claim_batch) before it looks the key up in every live
 *   partition, keeps one (owner, key) to one request: a key first used at 23:59 replays at 00:01.
 *   A partition is dropped only once its whole day is older than IDEMPOTENCY_TTL_HOURS;
 * - ix_idempotency_keys_created and ix_webhook_deliveries_finished served the row-by-row purges
 *   and go with them;
 * - uq_webhook_deliveries_reference_id becomes (reference_id, created_at).
 */
export class PartitionShortLivedTables1764020100000 implements MigrationInterface {
  name = 'PartitionShortLivedTables1764020100000';

  async up(db: QueryRunner): Promise<void> {
    await partitionInPlace(db, 'outbox_events', [
      `ALTER TABLE "outbox_events" ADD CONSTRAINT "pk_outbox_events" PRIMARY KEY ("id", "created_at")`,
      `CREATE UNIQUE INDEX "uq_outbox_events_event_id" ON "outbox_events" ("event_id", "created_at")`,
      `CREATE INDEX "ix_outbox_events_pending" ON "outbox_events" ("id") WHERE "published_at" IS NULL`,
    ]);
    await partitionInPlace(db, 'idempotency_keys', [
      `ALTER TABLE "idempotency_keys" ADD CONSTRAINT "pk_idempotency_keys" PRIMARY KEY ("id", "created_at")`,
    ]);
    await partitionInPlace(db, 'webhook_deliveries', [
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "pk_webhook_deliveries" PRIMARY KEY ("id", "created_at")`,
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "uq_webhook_deliveries_reference_id"
         UNIQUE ("reference_id", "created_at")`,
      `CREATE INDEX "ix_webhook_deliveries_due" ON "webhook_deliveries" ("endpoint_id", "next_attempt_at")
         INCLUDE ("created_at") WHERE "status" = 'PENDING'`,
      `CREATE INDEX "ix_webhook_deliveries_endpoint" ON "webhook_deliveries" ("endpoint_id", "id" DESC)`,
    ]);
  }

  async down(): Promise<void> {
    throw new Error('Partitioned tables are not converted back: restore a backup taken before this migration');
  }
}
