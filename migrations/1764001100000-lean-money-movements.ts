import type { MigrationInterface, QueryRunner } from 'typeorm';

const ENTRY_HASH = `"ledger_entry_hash"(text, bigint, uuid, text, numeric, numeric, numeric, timestamptz)`;

/** What the foreign keys from ledger entries and transactions to users and transactions were. */
const FOREIGN_KEYS = [
  ['ledger_entries', 'fk_ledger_entries_user', 'user_id', 'users'],
  ['ledger_entries', 'fk_ledger_entries_transaction', 'transaction_id', 'transactions'],
  ['transactions', 'fk_transactions_sender', 'sender_id', 'users'],
  ['transactions', 'fk_transactions_receiver', 'receiver_id', 'users'],
] as const;

/**
 * Less database work per money movement, every guarantee kept (docs/decisions.md, "Less work per
 * money movement"):
 * - the idempotency record is written once, by idempotency_finish, which now takes the key itself:
 *   the old signature goes, and the repeatable step creates the new one;
 * - the four foreign keys the movements check on every insert (six queries per transfer) go: a
 *   movement only names accounts it holds locked and the transaction it has just inserted. What
 *   ON DELETE RESTRICT protected is kept by refusing every delete, truncate and id change of users
 *   and transactions; other writers of ledger entries are still checked by the chain trigger;
 *   and the audit reports any orphan;
 * - ledger_entry_hash is declared STABLE, which it is (concat_ws and convert_to are), so
 *   PostgreSQL inlines it instead of running it as a SQL function per entry. Its body, the
 *   chain's format, is untouched.
 */
export class LeanMoneyMovements1764001100000 implements MigrationInterface {
  name = 'LeanMoneyMovements1764001100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION IF EXISTS "idempotency_finish"(bigint, jsonb, integer)`);
    // Whatever was recorded for the dropped function, its file is applied again after the migrations.
    await db.query(`DELETE FROM "sql_functions" WHERE "name" = 'idempotency_finish'`);
    await this.keepReferencedRows(db);
    for (const [table, constraint] of FOREIGN_KEYS) {
      await db.query(`ALTER TABLE "${table}" DROP CONSTRAINT "${constraint}"`);
    }
    await this.checkOtherLedgerWriters(db);
    await db.query(`ALTER FUNCTION ${ENTRY_HASH} STABLE`);
  }

  /** Users and transactions are history that entries and transactions refer to by id: never removed. */
  private async keepReferencedRows(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION "referenced_rows_are_kept"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION '% is not allowed on %: ledger entries and transactions refer to its rows by id',
          TG_OP, TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
      END
      $$`);
    for (const table of ['users', 'transactions']) {
      await db.query(`
        CREATE TRIGGER "trg_${table}_no_delete" BEFORE DELETE ON "${table}"
        FOR EACH ROW EXECUTE FUNCTION "referenced_rows_are_kept"()`);
      await db.query(`
        CREATE TRIGGER "trg_${table}_no_truncate" BEFORE TRUNCATE ON "${table}"
        FOR EACH STATEMENT EXECUTE FUNCTION "referenced_rows_are_kept"()`);
      // Per statement, and only for one naming the id: the movements' updates never pay for it.
      await db.query(`
        CREATE TRIGGER "trg_${table}_no_id_update" BEFORE UPDATE OF "id" ON "${table}"
        FOR EACH STATEMENT EXECUTE FUNCTION "referenced_rows_are_kept"()`);
    }
  }

  /**
   * An entry inserted without its hash (a repair, a fixture: not a movement, which hashes inline
   * from the row it holds) is chained by this trigger, which now also refuses an entry naming an
   * account or a transaction that does not exist, as the foreign keys did.
   */
  private async checkOtherLedgerWriters(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE OR REPLACE FUNCTION "ledger_entries_chain"() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        v_head text;
      BEGIN
        SELECT last_entry_hash INTO v_head FROM users WHERE id = NEW.user_id FOR UPDATE;
        IF NOT FOUND THEN
          RAISE EXCEPTION 'ledger entry for account %, which does not exist', NEW.user_id
            USING ERRCODE = 'foreign_key_violation';
        END IF;
        IF NEW.transaction_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM transactions WHERE id = NEW.transaction_id) THEN
          RAISE EXCEPTION 'ledger entry for transaction %, which does not exist', NEW.transaction_id
            USING ERRCODE = 'foreign_key_violation';
        END IF;
        NEW.hash := ledger_entry_hash(v_head, NEW.user_id, NEW.transaction_reference_id, NEW.entry_type,
          NEW.amount, NEW.balance_before, NEW.balance_after, NEW.created_at);
        UPDATE users SET last_entry_hash = NEW.hash WHERE id = NEW.user_id;
        RETURN NEW;
      END
      $$`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER FUNCTION ${ENTRY_HASH} IMMUTABLE`);
    await db.query(`
      CREATE OR REPLACE FUNCTION "ledger_entries_chain"() RETURNS trigger LANGUAGE plpgsql AS $$
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
    for (const [table, constraint, column, referenced] of FOREIGN_KEYS) {
      await db.query(`
        ALTER TABLE "${table}" ADD CONSTRAINT "${constraint}"
        FOREIGN KEY ("${column}") REFERENCES "${referenced}" ("id") ON DELETE RESTRICT`);
    }
    for (const table of ['users', 'transactions']) {
      for (const trigger of ['no_delete', 'no_truncate', 'no_id_update']) {
        await db.query(`DROP TRIGGER "trg_${table}_${trigger}" ON "${table}"`);
      }
    }
    await db.query(`DROP FUNCTION "referenced_rows_are_kept"()`);
    await db.query(`DROP FUNCTION IF EXISTS "idempotency_finish"(text, text, text, bigint, jsonb, integer)`);
    await db.query(`DELETE FROM "sql_functions" WHERE "name" = 'idempotency_finish'`);
  }
}
