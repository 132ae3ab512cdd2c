import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateUsersAndLedger1764000000000 implements MigrationInterface {
  name = 'CreateUsersAndLedger1764000000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE "users" (
        "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
        "reference_id" uuid NOT NULL,
        "name" varchar(100) NOT NULL,
        "upi_id" varchar(100) NOT NULL,
        "phone_number" varchar(10) NOT NULL,
        "balance" numeric(19,4) NOT NULL,
        "version" integer NOT NULL DEFAULT 0,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_users" PRIMARY KEY ("id"),
        CONSTRAINT "ck_users_balance_non_negative" CHECK ("balance" >= 0)
      )`);
    await db.query(`CREATE UNIQUE INDEX "uq_users_reference_id" ON "users" ("reference_id")`);
    await db.query(`CREATE UNIQUE INDEX "uq_users_upi_id_lower" ON "users" (lower("upi_id"))`);

    await db.query(`
      CREATE TABLE "ledger_entries" (
        "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
        "user_id" bigint NOT NULL,
        "transaction_reference_id" uuid NOT NULL,
        "entry_type" varchar(6) NOT NULL,
        "amount" numeric(19,4) NOT NULL,
        "balance_before" numeric(19,4) NOT NULL,
        "balance_after" numeric(19,4) NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_ledger_entries" PRIMARY KEY ("id"),
        CONSTRAINT "fk_ledger_entries_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE RESTRICT,
        CONSTRAINT "ck_ledger_entries_amount_positive" CHECK ("amount" > 0),
        CONSTRAINT "ck_ledger_entries_entry_type" CHECK ("entry_type" IN ('DEBIT', 'CREDIT')),
        CONSTRAINT "ck_ledger_entries_balance_after_non_negative" CHECK ("balance_after" >= 0)
      )`);
    await db.query(
      `CREATE INDEX "ix_ledger_entries_user_created" ON "ledger_entries" ("user_id", "created_at" DESC, "id" DESC)`,
    );

    // The ledger is an audit record: corrections append new rows, nothing rewrites history.
    await db.query(`
      CREATE FUNCTION "ledger_entries_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'ledger_entries is append-only: % is not allowed', TG_OP
          USING ERRCODE = 'restrict_violation';
      END
      $$`);
    await db.query(`
      CREATE TRIGGER "trg_ledger_entries_no_update_delete"
      BEFORE UPDATE OR DELETE ON "ledger_entries"
      FOR EACH ROW EXECUTE FUNCTION "ledger_entries_append_only"()`);
    await db.query(`
      CREATE TRIGGER "trg_ledger_entries_no_truncate"
      BEFORE TRUNCATE ON "ledger_entries"
      FOR EACH STATEMENT EXECUTE FUNCTION "ledger_entries_append_only"()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "ledger_entries"`);
    await db.query(`DROP FUNCTION "ledger_entries_append_only"()`);
    await db.query(`DROP TABLE "users"`);
  }
}
