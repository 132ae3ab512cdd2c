import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Security round (issue 18): roles granted in PostgreSQL (who and when) instead of claimed at
 * login, every grant and revocation kept as history, and login lockouts counted per source
 * (one row for "any address" and one per address the owner has logged in from) with an
 * escalation level that a success does not reset.
 */
export class AdminGrantsAndLockouts1764002000000 implements MigrationInterface {
  name = 'AdminGrantsAndLockouts1764002000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE "role_grants" (
        "user_id" bigint NOT NULL,
        "role" varchar(32) NOT NULL,
        "granted_by" varchar(100) NOT NULL,
        "granted_at" timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT "pk_role_grants" PRIMARY KEY ("user_id", "role"),
        CONSTRAINT "fk_role_grants_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE,
        CONSTRAINT "ck_role_grants_role" CHECK ("role" IN ('ROLE_ADMIN'))
      )`);
    // The history an "admin actions log" can be built on: GRANT_ROLE / REVOKE_ROLE, by whom, when.
    await db.query(`
      CREATE TABLE "role_grant_events" (
        "id" bigint GENERATED ALWAYS AS IDENTITY,
        "user_id" bigint NOT NULL,
        "role" varchar(32) NOT NULL,
        "action" varchar(16) NOT NULL,
        "actor" varchar(100) NOT NULL,
        "at" timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT "pk_role_grant_events" PRIMARY KEY ("id"),
        CONSTRAINT "ck_role_grant_events_action" CHECK ("action" IN ('GRANT_ROLE', 'REVOKE_ROLE'))
      )`);
    await db.query(`CREATE INDEX "ix_role_grant_events_user" ON "role_grant_events" ("user_id", "at" DESC)`);

    await db.query(`ALTER TABLE "login_attempts" ADD "source" varchar(64) NOT NULL DEFAULT '*'`);
    await db.query(`ALTER TABLE "login_attempts" ADD "lock_count" integer NOT NULL DEFAULT 0`);
    await db.query(`ALTER TABLE "login_attempts" DROP CONSTRAINT "pk_login_attempts"`);
    await db.query(`ALTER TABLE "login_attempts" ADD CONSTRAINT "pk_login_attempts" PRIMARY KEY ("upi_id", "source")`);
    await db.query(`
      CREATE TABLE "login_known_addresses" (
        "upi_id" varchar(100) NOT NULL,
        "address" varchar(64) NOT NULL,
        "last_success_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_login_known_addresses" PRIMARY KEY ("upi_id", "address")
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "login_known_addresses"`);
    await db.query(`DELETE FROM "login_attempts" WHERE "source" <> '*'`);
    await db.query(`ALTER TABLE "login_attempts" DROP CONSTRAINT "pk_login_attempts"`);
    await db.query(`ALTER TABLE "login_attempts" ADD CONSTRAINT "pk_login_attempts" PRIMARY KEY ("upi_id")`);
    await db.query(`ALTER TABLE "login_attempts" DROP COLUMN "lock_count"`);
    await db.query(`ALTER TABLE "login_attempts" DROP COLUMN "source"`);
    await db.query(`DROP TABLE "role_grant_events"`);
    await db.query(`DROP TABLE "role_grants"`);
  }
}
