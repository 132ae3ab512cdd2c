import type { MigrationInterface, QueryRunner } from 'typeorm';

export class PinLoginAndRevocation1764000400000 implements MigrationInterface {
  name = 'PinLoginAndRevocation1764000400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "users" ADD "pin_hash" varchar(200)`);
    // Keyed by lower(upi_id), registered or not: unknown IDs lock like real ones, so a lock reveals nothing.
    await db.query(`
      CREATE TABLE "login_attempts" (
        "upi_id" varchar(100) NOT NULL,
        "failed_count" integer NOT NULL,
        "locked_until" timestamptz,
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_login_attempts" PRIMARY KEY ("upi_id")
      )`);
    await db.query(`
      CREATE TABLE "revoked_tokens" (
        "jti" uuid NOT NULL,
        "upi_id" varchar(100) NOT NULL,
        "expires_at" timestamptz NOT NULL,
        "revoked_at" timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT "pk_revoked_tokens" PRIMARY KEY ("jti")
      )`);
    await db.query(`CREATE INDEX "ix_revoked_tokens_revoked_at" ON "revoked_tokens" ("revoked_at")`);
    await db.query(`CREATE INDEX "ix_revoked_tokens_expires_at" ON "revoked_tokens" ("expires_at")`);
    // "Log out everywhere": every token of the user issued up to revoked_before is refused.
    await db.query(`
      CREATE TABLE "user_token_revocations" (
        "upi_id" varchar(100) NOT NULL,
        "revoked_before" timestamptz NOT NULL,
        "expires_at" timestamptz NOT NULL,
        "updated_at" timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT "pk_user_token_revocations" PRIMARY KEY ("upi_id")
      )`);
    await db.query(`CREATE INDEX "ix_user_token_revocations_updated_at" ON "user_token_revocations" ("updated_at")`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "user_token_revocations"`);
    await db.query(`DROP TABLE "revoked_tokens"`);
    await db.query(`DROP TABLE "login_attempts"`);
    await db.query(`ALTER TABLE "users" DROP COLUMN "pin_hash"`);
  }
}
