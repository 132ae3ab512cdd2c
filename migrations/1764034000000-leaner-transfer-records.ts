import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two index entries fewer per transfer (issue 41): ix_transactions_sender_amount and
 * ix_transactions_receiver_amount served only sortBy=amount of the transaction list. That list
 * now reads the user's sent and received transactions through the (party, created_at) indexes and
 * sorts them, which costs a page in proportion to the user's history instead of to its depth
 * (docs/decisions/0020-amount-sorted-lists-without-indexes.md). Every transfer paid two entries,
 * about 180 bytes of WAL and 80 on disk, for a sort few ask for.
 * An idempotency record keeps its request's SHA-256 as 32 bytes instead of 64 hex characters
 * (rows a hand wrote with anything else keep their text's bytes, and match no request).
 * The idempotency records' slimmer outcome and their plain insert are SQL function changes
 * (src/idempotency/sql), applied after the migrations; records already stored replay as before.
 */
export class LeanerTransferRecords1764034000000 implements MigrationInterface {
  name = 'LeanerTransferRecords1764034000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX "ix_transactions_sender_amount"`);
    await db.query(`DROP INDEX "ix_transactions_receiver_amount"`);
    await db.query(
      `ALTER TABLE "idempotency_keys" ALTER COLUMN "request_hash" TYPE bytea
       USING CASE WHEN "request_hash" ~ '^[0-9a-f]{64}$' THEN decode("request_hash", 'hex')
                  ELSE convert_to("request_hash", 'UTF8') END`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE "idempotency_keys" ALTER COLUMN "request_hash" TYPE character(64)
       USING CASE WHEN length("request_hash") = 32 THEN encode("request_hash", 'hex')
                  ELSE convert_from("request_hash", 'UTF8') END`,
    );
    await db.query(
      `CREATE INDEX "ix_transactions_sender_amount" ON "transactions" ("sender_id", "amount" DESC, "id" DESC)`,
    );
    await db.query(
      `CREATE INDEX "ix_transactions_receiver_amount" ON "transactions" ("receiver_id", "amount" DESC, "id" DESC)`,
    );
  }
}
