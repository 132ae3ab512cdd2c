import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateTransfers1764000100000 implements MigrationInterface {
  name = 'CreateTransfers1764000100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE "transactions" (
        "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
        "reference_id" uuid NOT NULL,
        "sender_id" bigint NOT NULL,
        "receiver_id" bigint NOT NULL,
        "sender_upi_id" varchar(100) NOT NULL,
        "receiver_upi_id" varchar(100) NOT NULL,
        "amount" numeric(19,4) NOT NULL,
        "status" varchar(16) NOT NULL DEFAULT 'COMPLETED',
        "type" varchar(16) NOT NULL DEFAULT 'TRANSFER',
        "note" varchar(255),
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_transactions" PRIMARY KEY ("id"),
        CONSTRAINT "fk_transactions_sender" FOREIGN KEY ("sender_id") REFERENCES "users" ("id") ON DELETE RESTRICT,
        CONSTRAINT "fk_transactions_receiver" FOREIGN KEY ("receiver_id") REFERENCES "users" ("id") ON DELETE RESTRICT,
        CONSTRAINT "ck_transactions_amount_positive" CHECK ("amount" > 0),
        CONSTRAINT "ck_transactions_not_self" CHECK ("sender_id" <> "receiver_id")
      )`);
    await db.query(`CREATE UNIQUE INDEX "uq_transactions_reference_id" ON "transactions" ("reference_id")`);
    await db.query(
      `CREATE INDEX "ix_transactions_sender_created" ON "transactions" ("sender_id", "created_at" DESC, "id" DESC)`,
    );
    await db.query(
      `CREATE INDEX "ix_transactions_receiver_created" ON "transactions" ("receiver_id", "created_at" DESC, "id" DESC)`,
    );

    // Opening balances have no transaction behind them, so the link is optional.
    await db.query(`ALTER TABLE "ledger_entries" ADD "transaction_id" bigint`);
    await db.query(`
      ALTER TABLE "ledger_entries" ADD CONSTRAINT "fk_ledger_entries_transaction"
      FOREIGN KEY ("transaction_id") REFERENCES "transactions" ("id") ON DELETE RESTRICT`);
    await db.query(
      `CREATE INDEX "ix_ledger_entries_transaction" ON "ledger_entries" ("transaction_id") WHERE "transaction_id" IS NOT NULL`,
    );

    await db.query(`
      CREATE TABLE "idempotency_keys" (
        "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
        "owner_upi_id" varchar(100) NOT NULL,
        "idempotency_key" varchar(255) NOT NULL,
        "request_hash" char(64) NOT NULL,
        "status" varchar(16) NOT NULL,
        "response_status" integer,
        "response_body" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_idempotency_keys" PRIMARY KEY ("id"),
        CONSTRAINT "ck_idempotency_keys_status" CHECK ("status" IN ('INITIATED', 'PROCESSING', 'SUCCESS', 'FAILED'))
      )`);
    // Keys are scoped per user: the same key from two users names two requests.
    await db.query(
      `CREATE UNIQUE INDEX "uq_idempotency_keys_owner_key" ON "idempotency_keys" ("owner_upi_id", "idempotency_key")`,
    );
    await db.query(`CREATE INDEX "ix_idempotency_keys_created" ON "idempotency_keys" ("created_at")`);

    await db.query(`
      CREATE TABLE "outbox_events" (
        "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
        "event_id" uuid NOT NULL,
        "event_type" varchar(64) NOT NULL,
        "aggregate_key" varchar(100) NOT NULL,
        "payload" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "published_at" timestamptz,
        "attempts" integer NOT NULL DEFAULT 0,
        "last_error" varchar(1000),
        CONSTRAINT "pk_outbox_events" PRIMARY KEY ("id")
      )`);
    await db.query(`CREATE UNIQUE INDEX "uq_outbox_events_event_id" ON "outbox_events" ("event_id")`);
    // The relay only ever looks for what is still pending, oldest first.
    await db.query(`CREATE INDEX "ix_outbox_events_pending" ON "outbox_events" ("id") WHERE "published_at" IS NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "outbox_events"`);
    await db.query(`DROP TABLE "idempotency_keys"`);
    await db.query(`DROP INDEX "ix_ledger_entries_transaction"`);
    await db.query(`ALTER TABLE "ledger_entries" DROP CONSTRAINT "fk_ledger_entries_transaction"`);
    await db.query(`ALTER TABLE "ledger_entries" DROP COLUMN "transaction_id"`);
    await db.query(`DROP TABLE "transactions"`);
  }
}
