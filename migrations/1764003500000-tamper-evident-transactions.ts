import type { MigrationInterface, QueryRunner } from 'typeorm';

const CONTENT_HASH = `"transaction_content_hash"(bigint, uuid, bigint, bigint, text, text, numeric, text, text, bigint, uuid, timestamptz)`;

/**
 * Transactions become tamper-evident, like the ledger (docs/decisions.md, "Tamper-evident
 * transactions"):
 * - content_hash covers a transaction's immutable fields (parties, amount, type, note, original,
 *   time). A BEFORE INSERT row trigger computes it, so every insert path, present (the movement
 *   functions) and future (a batch function's multi-row insert), gets it without changes.
 * - A BEFORE UPDATE row trigger (an ordinary one, so a logical replica applies the primary's
 *   updates as they come) refuses any change of the immutable fields, and lets
 *   reversed_amount and status change only inside reverse_transfer, which says so with a
 *   transaction-local setting (payments.reversal_of = the original's id), and only to the values
 *   the reversals that exist imply. The setting is a guard against accidents, not a secret (any
 *   session may set it); the values check makes a forged reversal state impossible either way.
 * - The audit (src/audit) is the backstop for what bypasses triggers (a superuser): it
 *   recomputes the hash, checks each transaction against its chained ledger entries and its
 *   reversals, and names every mismatch by reference.
 */
export class TamperEvidentTransactions1764003500000 implements MigrationInterface {
  name = 'TamperEvidentTransactions1764003500000';

  async up(db: QueryRunner): Promise<void> {
    await this.contentHash(db);
    await db.query(`ALTER TABLE "transactions" ADD "content_hash" char(64)`);
    await db.query(`
      UPDATE "transactions" SET "content_hash" = transaction_content_hash("id", "reference_id", "sender_id",
        "receiver_id", "sender_upi_id", "receiver_upi_id", "amount", "type", "note", "original_transaction_id",
        "original_reference_id", "created_at")`);
    await db.query(`ALTER TABLE "transactions" ALTER COLUMN "content_hash" SET NOT NULL`);
    await this.sealOnInsert(db);
    await this.guardUpdates(db);
  }

  /**
   * The hash's format is history (every stored hash depends on it), so it lives here, frozen.
   * Money at its stored scale and the time as epoch microseconds: the text never depends on
   * session settings. Absent values are written '-' (concat_ws would skip them), and the note, the
   * one free text, goes last, so no note can pass for other fields.
   */
  private async contentHash(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION "transaction_content_hash"(
        p_id bigint, p_reference uuid, p_sender_id bigint, p_receiver_id bigint, p_sender_upi_id text,
        p_receiver_upi_id text, p_amount numeric, p_type text, p_note text, p_original_id bigint,
        p_original_reference uuid, p_created_at timestamptz
      ) RETURNS char(64) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT encode(sha256(convert_to(concat_ws('|', 'transaction-v1',
          p_id::text, p_reference::text, p_sender_id::text, p_receiver_id::text, p_sender_upi_id, p_receiver_upi_id,
          p_amount::numeric(19,4)::text, p_type, coalesce(p_original_id::text, '-'),
          coalesce(p_original_reference::text, '-'), (extract(epoch FROM p_created_at) * 1000000)::bigint::text,
          coalesce('n:' || p_note, '-')), 'UTF8')), 'hex')
      $$`);
  }

  /**
   * Fired ALWAYS, even under session_replication_role = replica (bulk loads such as the bench
   * seed, logical replicas): the hash depends only on the row, so computing it again is harmless,
   * and no insert path can leave it out. A new row's reversed amount and status are not refused
   * here; the audit checks them against the reversals that exist.
   */
  private async sealOnInsert(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION "transactions_seal"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.content_hash := transaction_content_hash(NEW.id, NEW.reference_id, NEW.sender_id, NEW.receiver_id,
          NEW.sender_upi_id, NEW.receiver_upi_id, NEW.amount, NEW.type, NEW.note, NEW.original_transaction_id,
          NEW.original_reference_id, NEW.created_at);
        RETURN NEW;
      END
      $$`);
    await db.query(`
      CREATE TRIGGER "trg_transactions_seal" BEFORE INSERT ON "transactions"
      FOR EACH ROW EXECUTE FUNCTION "transactions_seal"()`);
    await db.query(`ALTER TABLE "transactions" ENABLE ALWAYS TRIGGER "trg_transactions_seal"`);
  }

  /**
   * Every column but reversed_amount and status is compared as a whole row (to_jsonb), so a
   * column added later is immutable too unless this trigger is changed on purpose.
   */
  private async guardUpdates(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION "transactions_guard"() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        v_reversed numeric(19,4);
        v_status text;
      BEGIN
        IF to_jsonb(NEW) - 'reversed_amount' - 'status' IS DISTINCT FROM to_jsonb(OLD) - 'reversed_amount' - 'status' THEN
          RAISE EXCEPTION 'transaction % is immutable: only a reversal changes its reversed amount and status',
            OLD.reference_id USING ERRCODE = 'restrict_violation';
        END IF;
        IF (NEW.reversed_amount, NEW.status) IS NOT DISTINCT FROM (OLD.reversed_amount, OLD.status) THEN
          RETURN NEW;
        END IF;
        IF current_setting('payments.reversal_of', true) IS DISTINCT FROM OLD.id::text THEN
          RAISE EXCEPTION 'the reversed amount and status of transaction % change only by reverse_transfer',
            OLD.reference_id USING ERRCODE = 'restrict_violation';
        END IF;
        SELECT coalesce(sum(amount), 0) INTO v_reversed FROM transactions WHERE original_transaction_id = OLD.id;
        v_status := CASE WHEN v_reversed = 0 THEN 'COMPLETED' WHEN v_reversed = OLD.amount THEN 'REVERSED'
                         ELSE 'PARTIALLY_REVERSED' END;
        IF NEW.reversed_amount <> v_reversed OR NEW.status <> v_status THEN
          RAISE EXCEPTION 'transaction % would read % reversed (%), but its reversals sum to % (%)', OLD.reference_id,
            NEW.reversed_amount, NEW.status, v_reversed, v_status USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
      END
      $$`);
    await db.query(`
      CREATE TRIGGER "trg_transactions_guard" BEFORE UPDATE ON "transactions"
      FOR EACH ROW EXECUTE FUNCTION "transactions_guard"()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER "trg_transactions_guard" ON "transactions"`);
    await db.query(`DROP FUNCTION "transactions_guard"()`);
    await db.query(`DROP TRIGGER "trg_transactions_seal" ON "transactions"`);
    await db.query(`DROP FUNCTION "transactions_seal"()`);
    await db.query(`ALTER TABLE "transactions" DROP COLUMN "content_hash"`);
    await db.query(`DROP FUNCTION ${CONTENT_HASH}`);
  }
}
