import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 24: account freezes (read from the locked users row, so a freeze reaches transfers already
 * queued behind the lock), per-user limit overrides, per-sender per-day usage updated in the
 * money transaction, and the admin actions log, append-only like the ledger.
 */
export class LimitsAndFreezes1764007000000 implements MigrationInterface {
  name = 'LimitsAndFreezes1764007000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "users" ADD "frozen_at" timestamptz`);
    await db.query(`ALTER TABLE "users" ADD "frozen_reason" varchar(255)`);
    await db.query(`CREATE INDEX "ix_users_frozen" ON "users" ("id") WHERE "frozen_at" IS NOT NULL`);
    await db.query(`
      CREATE TABLE "limit_overrides" (
        "user_id" bigint NOT NULL,
        "daily_amount_max" numeric(19,4),
        "daily_count_max" integer,
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_limit_overrides" PRIMARY KEY ("user_id"),
        CONSTRAINT "fk_limit_overrides_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE,
        CONSTRAINT "ck_limit_overrides_amount" CHECK ("daily_amount_max" >= 0),
        CONSTRAINT "ck_limit_overrides_count" CHECK ("daily_count_max" >= 0)
      )`);
    await db.query(`
      CREATE TABLE "limits_daily_usage" (
        "user_id" bigint NOT NULL,
        "day" date NOT NULL,
        "amount" numeric(19,4) NOT NULL,
        "count" integer NOT NULL,
        CONSTRAINT "pk_limits_daily_usage" PRIMARY KEY ("user_id", "day")
      )`);
    await db.query(`
      CREATE TABLE "admin_actions" (
        "id" bigint GENERATED ALWAYS AS IDENTITY,
        "user_id" bigint NOT NULL,
        "action" varchar(16) NOT NULL,
        "reason" varchar(255),
        "admin_upi_id" varchar(100) NOT NULL,
        "at" timestamptz NOT NULL DEFAULT clock_timestamp(),
        "details" jsonb NOT NULL DEFAULT '{}',
        CONSTRAINT "pk_admin_actions" PRIMARY KEY ("id"),
        CONSTRAINT "ck_admin_actions_action" CHECK ("action" IN ('FREEZE', 'UNFREEZE', 'LIMITS', 'GRANT_ROLE', 'REVOKE_ROLE'))
      )`);
    await db.query(`CREATE INDEX "ix_admin_actions_user" ON "admin_actions" ("user_id", "id" DESC)`);
    // The same guard as the ledger's: the log is evidence, so no role may rewrite it.
    await db.query(`
      CREATE FUNCTION admin_actions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'admin_actions is append-only: % is not allowed', TG_OP;
      END
      $$`);
    await db.query(`
      CREATE TRIGGER "tr_admin_actions_append_only" BEFORE UPDATE OR DELETE OR TRUNCATE ON "admin_actions"
      FOR EACH STATEMENT EXECUTE FUNCTION admin_actions_append_only()`);
    // Grants recorded before this log existed are part of the history it tells.
    await db.query(`
      INSERT INTO "admin_actions" ("user_id", "action", "admin_upi_id", "at", "details")
      SELECT "user_id", "action", "actor", "at", jsonb_build_object('role', "role") FROM "role_grant_events" ORDER BY "id"`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "admin_actions"`);
    await db.query(`DROP FUNCTION admin_actions_append_only()`);
    await db.query(`DROP TABLE "limits_daily_usage"`);
    await db.query(`DROP TABLE "limit_overrides"`);
    await db.query(`DROP INDEX "ix_users_frozen"`);
    await db.query(`ALTER TABLE "users" DROP COLUMN "frozen_reason"`);
    await db.query(`ALTER TABLE "users" DROP COLUMN "frozen_at"`);
  }
}
