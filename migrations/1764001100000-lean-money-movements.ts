import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Less database work per money movement, every guarantee kept (docs/decisions.md, "Less work per
 * money movement"). The idempotency record is written once, by idempotency_finish, which now takes
 * the key itself: the old signature goes, and the repeatable step creates the new one.
 */
export class LeanMoneyMovements1764001100000 implements MigrationInterface {
  name = 'LeanMoneyMovements1764001100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION IF EXISTS "idempotency_finish"(bigint, jsonb, integer)`);
    // Whatever was recorded for the dropped function, its file is applied again after the migrations.
    await db.query(`DELETE FROM "sql_functions" WHERE "name" = 'idempotency_finish'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION IF EXISTS "idempotency_finish"(text, text, text, bigint, jsonb, integer)`);
    await db.query(`DELETE FROM "sql_functions" WHERE "name" = 'idempotency_finish'`);
  }
}
