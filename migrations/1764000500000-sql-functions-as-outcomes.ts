import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Database functions move out of migrations into canonical files (src/<module>/sql/*.sql), applied
 * by the repeatable step after the migrations (src/database/sql-functions.ts). This drops the
 * first-round functions, which wrote HTTP text, and makes room for stored outcomes.
 */
export class SqlFunctionsAsOutcomes1764000500000 implements MigrationInterface {
  name = 'SqlFunctionsAsOutcomes1764000500000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `DROP FUNCTION IF EXISTS "transfer_funds"(text, text, text, text, text, numeric, text, uuid, uuid, text, text, text)`,
    );
    await db.query(`DROP FUNCTION IF EXISTS "problem_json"(text, text, text, integer, text, text, text, timestamptz)`);
    await db.query(`
      CREATE TABLE "sql_functions" (
        "name" varchar(200) NOT NULL,
        "checksum" char(64) NOT NULL,
        "applied_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_sql_functions" PRIMARY KEY ("name")
      )`);
    // The typed outcome a movement answered ({code, data, at, requestId, instance}); response_body
    // stays for rows stored before this migration, which are replayed as they were written.
    await db.query(`ALTER TABLE "idempotency_keys" ADD "outcome" jsonb`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "outcome"`);
    await db.query(`DROP TABLE "sql_functions"`);
    // The repeatable step owns the current functions; the first-round ones come back with their migration only.
  }
}
