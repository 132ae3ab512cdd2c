import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One movement skeleton, one outcome vocabulary (docs/decisions.md "One movement skeleton"):
 * - the idempotency functions lose what served records written before outcomes existed (the
 *   takeover of a committed INITIATED/PROCESSING claim, the verbatim replay of response_body),
 *   and no function takes an HTTP status any more: idempotency_keys.response_status is filled from
 *   the outcome's code (outcome_response_status.sql, generated from the service's vocabulary);
 * - response_body goes: no version since outcomes existed has written it, and a history of days
 *   holds no row that needs it (a row without an outcome is answered 409, never replayed).
 * The functions whose arguments change are dropped here and their checksums forgotten, so the
 * function files (src/<module>/sql) create them anew after this migration.
 */
export class MovementSkeleton1764013000000 implements MigrationInterface {
  name = 'MovementSkeleton1764013000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION IF EXISTS "idempotency_claim"(text, text, text, timestamptz)`);
    await db.query(`DROP FUNCTION IF EXISTS "idempotency_finish"(text, text, text, bigint, jsonb, integer)`);
    await db.query(`DROP FUNCTION IF EXISTS "idempotency_finish_batch"(text[], text[], text[], jsonb[], jsonb)`);
    await db.query(`
      DROP FUNCTION IF EXISTS "transfer_funds_batch"(text[], text[], text[], text[], text[], numeric[], text[], uuid[],
        uuid[], jsonb[], jsonb)`);
    await db.query(
      `DELETE FROM "sql_functions"
       WHERE "name" IN ('idempotency_claim', 'idempotency_finish', 'idempotency_finish_batch', 'transfer_funds_batch')`,
    );
    await db.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "response_body"`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "idempotency_keys" ADD COLUMN "response_body" text`);
  }
}
