import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The treasury (an internal account, id 0), reversal bookkeeping on transactions, and the
 * per-account hash chain on ledger entries, with the backfill that makes existing data obey all
 * three: a treasury DEBIT for every existing opening CREDIT (so the global sum is 0), then the
 * hash of every entry, account by account.
 */
export class TreasuryReversalsHashChain1764000700000 implements MigrationInterface {
  name = 'TreasuryReversalsHashChain1764000700000';

  async up(db: QueryRunner): Promise<void> {
    await this.treasury(db);
    await this.reversals(db);
    await this.hashChain(db);
    await this.backfillTreasurySides(db);
    await this.backfillHashes(db);
  }

  /**
   * Rows of users flagged TREASURY rather than a table of their own: transactions and ledger
   * entries keep one foreign key to one accounts table, and every movement locks accounts the same
   * way. Their UPI IDs have no "@", so no registration, login or transfer can ever name them.
   * Eight of them (ids 0 to -7), because one numeric(19,4) balance could issue at most 10^15 in
   * all, and because registrations and deposits then spread their locks over eight rows.
   */
  private async treasury(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "users" ADD "kind" varchar(16) NOT NULL DEFAULT 'USER'`);
    await db.query(`ALTER TABLE "users" ADD CONSTRAINT "ck_users_kind" CHECK ("kind" IN ('USER', 'TREASURY'))`);
    // The treasury's balance is minus all money issued; every real user still stays at or above 0.
    await db.query(`ALTER TABLE "users" DROP CONSTRAINT "ck_users_balance_non_negative"`);
    await db.query(
      `ALTER TABLE "users" ADD CONSTRAINT "ck_users_balance_non_negative" CHECK ("balance" >= 0 OR "kind" = 'TREASURY')`,
    );
    await db.query(`
      INSERT INTO "users" ("id", "reference_id", "name", "upi_id", "phone_number", "balance", "kind")
      OVERRIDING SYSTEM VALUE
      SELECT -n, ('00000000-0000-0000-0000-00000000000' || n)::uuid, 'Treasury',
             CASE n WHEN 0 THEN 'treasury' ELSE 'treasury-' || n END, '0000000000', 0, 'TREASURY'
      FROM generate_series(0, 7) AS n`);
    // Entries carry no kind; the treasury's fixed ids (0 and below) let its running balances go below 0.
    await db.query(`ALTER TABLE "ledger_entries" DROP CONSTRAINT "ck_ledger_entries_balance_after_non_negative"`);
    await db.query(
      `ALTER TABLE "ledger_entries" ADD CONSTRAINT "ck_ledger_entries_balance_after_non_negative" CHECK ("balance_after" >= 0 OR "user_id" <= 0)`,
    );
  }

  private async reversals(db: QueryRunner): Promise<void> {
    // PARTIALLY_REVERSED is 18 characters.
    await db.query(`ALTER TABLE "transactions" ALTER COLUMN "status" TYPE varchar(20)`);
    await db.query(`ALTER TABLE "transactions" ADD "reversed_amount" numeric(19,4) NOT NULL DEFAULT 0`);
    await db.query(`ALTER TABLE "transactions" ADD "original_transaction_id" bigint`);
    await db.query(`ALTER TABLE "transactions" ADD "original_reference_id" uuid`);
    await db.query(`
      ALTER TABLE "transactions" ADD CONSTRAINT "fk_transactions_original"
      FOREIGN KEY ("original_transaction_id") REFERENCES "transactions" ("id") ON DELETE RESTRICT`);
    await db.query(
      `ALTER TABLE "transactions" ADD CONSTRAINT "ck_transactions_reversed_amount" CHECK ("reversed_amount" >= 0 AND "reversed_amount" <= "amount")`,
    );
    await db.query(
      `ALTER TABLE "transactions" ADD CONSTRAINT "ck_transactions_type" CHECK ("type" IN ('TRANSFER', 'DEPOSIT', 'REVERSAL'))`,
    );
    await db.query(
      `ALTER TABLE "transactions" ADD CONSTRAINT "ck_transactions_status" CHECK ("status" IN ('COMPLETED', 'PARTIALLY_REVERSED', 'REVERSED'))`,
    );
    await db.query(
      `CREATE INDEX "ix_transactions_original" ON "transactions" ("original_transaction_id") WHERE "original_transaction_id" IS NOT NULL`,
    );
  }

  /**
   * The chain's format is history: every stored hash depends on it, so it lives here, frozen,
   * not in a repeatable file. Money is hashed at its stored scale and the time as epoch
   * microseconds, so the text never depends on session settings.
   */
  private async hashChain(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "users" ADD "last_entry_hash" char(64)`);
    await db.query(`ALTER TABLE "ledger_entries" ADD "hash" char(64)`);
    await db.query(`
      CREATE FUNCTION "ledger_entry_hash"(
        p_previous text, p_user_id bigint, p_reference uuid, p_entry_type text,
        p_amount numeric, p_balance_before numeric, p_balance_after numeric, p_created_at timestamptz
      ) RETURNS char(64) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT encode(sha256(convert_to(concat_ws('|',
          coalesce(p_previous, ''), p_user_id::text, p_reference::text, p_entry_type,
          p_amount::numeric(19,4)::text, p_balance_before::numeric(19,4)::text, p_balance_after::numeric(19,4)::text,
          (extract(epoch FROM p_created_at) * 1000000)::bigint::text), 'UTF8')), 'hex')
      $$`);
  }

  /** Each opening goes to the user's own treasury row (treasury_issue.sql picks the same first). */
  private async backfillTreasurySides(db: QueryRunner): Promise<void> {
    await db.query(`
      INSERT INTO "ledger_entries" ("user_id", "transaction_reference_id", "entry_type", "amount", "balance_before", "balance_after", "created_at")
      SELECT -("user_id" % 8), "transaction_reference_id", 'DEBIT', "amount",
             -(sum("amount") OVER w) + "amount", -(sum("amount") OVER w), "created_at"
      FROM "ledger_entries"
      WHERE "transaction_id" IS NULL AND "entry_type" = 'CREDIT' AND "user_id" > 0
      WINDOW w AS (PARTITION BY "user_id" % 8 ORDER BY "id" ROWS UNBOUNDED PRECEDING)
      ORDER BY "id"`);
    await db.query(`
      UPDATE "users" u SET "balance" = -(SELECT coalesce(sum(l."amount"), 0) FROM "ledger_entries" l
                                         WHERE l."user_id" = u."id" AND l."entry_type" = 'DEBIT')
      WHERE u."kind" = 'TREASURY'`);
  }

  /** The one sanctioned rewrite of the append-only ledger: filling the new column, once. */
  private async backfillHashes(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "ledger_entries" DISABLE TRIGGER "trg_ledger_entries_no_update_delete"`);
    await db.query(`
      DO $$
      DECLARE
        v_entry record;
        v_user bigint := NULL;
        v_previous text := NULL;
      BEGIN
        FOR v_entry IN SELECT * FROM ledger_entries ORDER BY user_id, id LOOP
          IF v_user IS DISTINCT FROM v_entry.user_id THEN
            v_user := v_entry.user_id;
            v_previous := NULL;
          END IF;
          v_previous := ledger_entry_hash(v_previous, v_entry.user_id, v_entry.transaction_reference_id,
            v_entry.entry_type, v_entry.amount, v_entry.balance_before, v_entry.balance_after, v_entry.created_at);
          UPDATE ledger_entries SET hash = v_previous WHERE id = v_entry.id;
        END LOOP;
      END
      $$`);
    await db.query(`ALTER TABLE "ledger_entries" ENABLE TRIGGER "trg_ledger_entries_no_update_delete"`);
    await db.query(`ALTER TABLE "ledger_entries" ALTER COLUMN "hash" SET NOT NULL`);
    await this.chainForOtherWriters(db);
    await db.query(`
      UPDATE "users" u SET "last_entry_hash" = (
        SELECT l."hash" FROM "ledger_entries" l WHERE l."user_id" = u."id" ORDER BY l."id" DESC LIMIT 1)`);
  }

  /**
   * The movements hash inline (no extra write). A row inserted any other way (a repair, a test
   * fixture) is chained here, so the hash is never missing and never wrong.
   */
  private async chainForOtherWriters(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION "ledger_entries_chain"() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        v_head text;
      BEGIN
        SELECT last_entry_hash INTO v_head FROM users WHERE id = NEW.user_id FOR UPDATE;
        NEW.hash := ledger_entry_hash(v_head, NEW.user_id, NEW.transaction_reference_id, NEW.entry_type,
          NEW.amount, NEW.balance_before, NEW.balance_after, NEW.created_at);
        UPDATE users SET last_entry_hash = NEW.hash WHERE id = NEW.user_id;
        RETURN NEW;
      END
      $$`);
    await db.query(`
      CREATE TRIGGER "trg_ledger_entries_chain" BEFORE INSERT ON "ledger_entries"
      FOR EACH ROW WHEN (NEW."hash" IS NULL) EXECUTE FUNCTION "ledger_entries_chain"()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER "trg_ledger_entries_chain" ON "ledger_entries"`);
    await db.query(`DROP FUNCTION "ledger_entries_chain"()`);
    await db.query(`ALTER TABLE "ledger_entries" DISABLE TRIGGER "trg_ledger_entries_no_update_delete"`);
    await db.query(`DELETE FROM "ledger_entries" WHERE "user_id" <= 0`);
    await db.query(`ALTER TABLE "ledger_entries" ENABLE TRIGGER "trg_ledger_entries_no_update_delete"`);
    await db.query(`ALTER TABLE "ledger_entries" DROP COLUMN "hash"`);
    await db.query(
      `DROP FUNCTION "ledger_entry_hash"(text, bigint, uuid, text, numeric, numeric, numeric, timestamptz)`,
    );
    await db.query(`DROP INDEX "ix_transactions_original"`);
    await db.query(`ALTER TABLE "transactions" DROP CONSTRAINT "ck_transactions_status"`);
    await db.query(`ALTER TABLE "transactions" DROP CONSTRAINT "ck_transactions_type"`);
    await db.query(`ALTER TABLE "transactions" DROP CONSTRAINT "ck_transactions_reversed_amount"`);
    await db.query(`ALTER TABLE "transactions" DROP CONSTRAINT "fk_transactions_original"`);
    await db.query(`ALTER TABLE "transactions" DROP COLUMN "original_reference_id"`);
    await db.query(`ALTER TABLE "transactions" DROP COLUMN "original_transaction_id"`);
    await db.query(`ALTER TABLE "transactions" DROP COLUMN "reversed_amount"`);
    await db.query(`UPDATE "transactions" SET "status" = 'COMPLETED' WHERE "status" = 'PARTIALLY_REVERSED'`);
    await db.query(`ALTER TABLE "transactions" ALTER COLUMN "status" TYPE varchar(16)`);
    await db.query(`ALTER TABLE "ledger_entries" DROP CONSTRAINT "ck_ledger_entries_balance_after_non_negative"`);
    await db.query(
      `ALTER TABLE "ledger_entries" ADD CONSTRAINT "ck_ledger_entries_balance_after_non_negative" CHECK ("balance_after" >= 0)`,
    );
    await db.query(`DELETE FROM "users" WHERE "kind" = 'TREASURY'`);
    await db.query(`ALTER TABLE "users" DROP CONSTRAINT "ck_users_balance_non_negative"`);
    await db.query(`ALTER TABLE "users" ADD CONSTRAINT "ck_users_balance_non_negative" CHECK ("balance" >= 0)`);
    await db.query(`ALTER TABLE "users" DROP CONSTRAINT "ck_users_kind"`);
    await db.query(`ALTER TABLE "users" DROP COLUMN "last_entry_hash"`);
    await db.query(`ALTER TABLE "users" DROP COLUMN "kind"`);
  }
}
