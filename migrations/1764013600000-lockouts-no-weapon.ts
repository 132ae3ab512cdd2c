import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 38: a stranger could lock an owner out for good. Each count now names the account it
 * was kept for (user_id; NULL while the UPI ID is not registered), so failures sent before the
 * owner registered are not held against them; and the addresses an owner never used share a
 * lock that grows to a longest one, never a permanent one.
 */
export class LockoutsNoWeapon1764013600000 implements MigrationInterface {
  name = 'LockoutsNoWeapon1764013600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "login_attempts" ADD "user_id" bigint`);
    // A count last touched after the account existed may hold its owner's failures: keep it theirs.
    await db.query(`
      UPDATE "login_attempts" a SET "user_id" = u."id"
      FROM "users" u
      WHERE lower(u."upi_id") = a."upi_id" AND a."updated_at" >= u."created_at"`);
    // Permanent locks of the shared source become the longest timed lock under the defaults (16 h).
    await db.query(`
      UPDATE "login_attempts" SET "locked_until" = now() + interval '16 hours'
      WHERE "source" = '*' AND "locked_until" = 'infinity'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "login_attempts" DROP COLUMN "user_id"`);
  }
}
