import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Half the bytes per transfer (issue 41): an idempotency record of a completed movement keeps its
 * outcome without the transaction's fields and names the transaction instead; a replay rebuilds
 * the same JSON from that row (src/idempotency/sql/idempotency_stored_outcome.sql,
 * idempotent_replay.sql). Records written before keep their whole outcome.
 */
export class IdempotencyKeysWithoutAnswers1764021100000 implements MigrationInterface {
  name = 'IdempotencyKeysWithoutAnswers1764021100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "idempotency_keys" ADD COLUMN "transaction_id" bigint`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      UPDATE "idempotency_keys" k SET "outcome" = idempotent_replay(k, k."request_hash")
      WHERE k."transaction_id" IS NOT NULL`);
    await db.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "transaction_id"`);
  }
}
