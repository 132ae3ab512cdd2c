import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The holds accounts' ids: -1000 to -1007, far below the treasury's rows (0, -1, ... as it grows). */
const HOLDS_ACCOUNT_FIRST_ID = 1000;
const HOLDS_ACCOUNTS = 8;

/**
 * Holds (money reserved before it moves): the `holds` table and its captures, the system holds
 * accounts (rows of users, kind HOLDS, like the treasury's), and `transactions.hold_reference_id`
 * naming the hold a capture drew on. Works whether or not `transactions` is partitioned: a plain
 * column and a partial index, no foreign key into it.
 */
export class Holds1764030000000 implements MigrationInterface {
  name = 'Holds1764030000000';

  async up(db: QueryRunner): Promise<void> {
    await this.holdsAccounts(db);
    await db.query(`
      CREATE TABLE "holds" (
        "id" bigint GENERATED ALWAYS AS IDENTITY CONSTRAINT "pk_holds" PRIMARY KEY,
        "reference_id" uuid NOT NULL CONSTRAINT "uq_holds_reference_id" UNIQUE,
        "payer_id" bigint NOT NULL,
        "payer_upi_id" varchar(100) NOT NULL,
        "payee_id" bigint NOT NULL,
        "payee_upi_id" varchar(100) NOT NULL,
        -- The holds account row that keeps this hold's money (one of eight, by payer).
        "account_id" bigint NOT NULL,
        "amount" numeric(19,4) NOT NULL CONSTRAINT "ck_holds_amount" CHECK ("amount" > 0),
        "captured_amount" numeric(19,4) NOT NULL DEFAULT 0,
        "status" varchar(16) NOT NULL DEFAULT 'HELD'
          CONSTRAINT "ck_holds_status" CHECK ("status" IN ('HELD', 'CAPTURED', 'RELEASED', 'EXPIRED')),
        "note" varchar(255),
        "created_at" timestamptz NOT NULL,
        "expires_at" timestamptz NOT NULL,
        "closed_at" timestamptz,
        -- The ledger reference of the remainder's return (release or expiry), when there was one.
        "return_reference_id" uuid CONSTRAINT "uq_holds_return_reference_id" UNIQUE,
        CONSTRAINT "ck_holds_captured" CHECK ("captured_amount" >= 0 AND "captured_amount" <= "amount"),
        CONSTRAINT "ck_holds_closed" CHECK (("status" = 'HELD') = ("closed_at" IS NULL))
      )`);
    await db.query(`CREATE INDEX "ix_holds_payer" ON "holds" ("payer_id", "id" DESC)`);
    await db.query(`CREATE INDEX "ix_holds_payee" ON "holds" ("payee_id", "id" DESC)`);
    // The expiry job's due list: only open holds, by when they fall due.
    await db.query(`CREATE INDEX "ix_holds_due" ON "holds" ("expires_at") WHERE "status" = 'HELD'`);
    await db.query(`
      CREATE TABLE "hold_captures" (
        "id" bigint GENERATED ALWAYS AS IDENTITY CONSTRAINT "pk_hold_captures" PRIMARY KEY,
        "hold_id" bigint NOT NULL CONSTRAINT "fk_hold_captures_hold" REFERENCES "holds" ("id") ON DELETE RESTRICT,
        "transaction_reference_id" uuid NOT NULL CONSTRAINT "uq_hold_captures_transaction" UNIQUE,
        "amount" numeric(19,4) NOT NULL CONSTRAINT "ck_hold_captures_amount" CHECK ("amount" > 0),
        "created_at" timestamptz NOT NULL
      )`);
    await db.query(`CREATE INDEX "ix_hold_captures_hold" ON "hold_captures" ("hold_id", "id")`);
    await db.query(`ALTER TABLE "transactions" ADD COLUMN "hold_reference_id" uuid`);
    await db.query(
      `CREATE INDEX "ix_transactions_hold_reference_id" ON "transactions" ("hold_reference_id") WHERE "hold_reference_id" IS NOT NULL`,
    );
  }

  /**
   * Eight rows of users, kind HOLDS, keep the money of open holds (a hold uses the row of its
   * payer's id modulo 8, so placements of different payers rarely wait for each other). Their
   * balance is the sum of what their holds still reserve, never below 0; their UPI IDs have no "@",
   * so no registration, login or transfer can name them.
   */
  private async holdsAccounts(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "users" DROP CONSTRAINT "ck_users_kind"`);
    await db.query(
      `ALTER TABLE "users" ADD CONSTRAINT "ck_users_kind" CHECK ("kind" IN ('USER', 'TREASURY', 'HOLDS'))`,
    );
    await db.query(`
      INSERT INTO "users" ("id", "reference_id", "name", "upi_id", "phone_number", "balance", "kind")
      OVERRIDING SYSTEM VALUE
      SELECT -(${HOLDS_ACCOUNT_FIRST_ID} + n), ('00000000-0000-0000-0001-' || lpad(n::text, 12, '0'))::uuid, 'Holds',
             'holds-' || n, '0000000000', 0, 'HOLDS'
      FROM generate_series(0, ${HOLDS_ACCOUNTS - 1}) AS n`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX "ix_transactions_hold_reference_id"`);
    await db.query(`ALTER TABLE "transactions" DROP COLUMN "hold_reference_id"`);
    await db.query(`DROP TABLE "hold_captures"`);
    await db.query(`DROP TABLE "holds"`);
    await db.query(`ALTER TABLE "users" DISABLE TRIGGER "trg_users_no_delete"`);
    await db.query(`DELETE FROM "users" WHERE "kind" = 'HOLDS'`);
    await db.query(`ALTER TABLE "users" ENABLE TRIGGER "trg_users_no_delete"`);
    await db.query(`ALTER TABLE "users" DROP CONSTRAINT "ck_users_kind"`);
    await db.query(`ALTER TABLE "users" ADD CONSTRAINT "ck_users_kind" CHECK ("kind" IN ('USER', 'TREASURY'))`);
  }
}
