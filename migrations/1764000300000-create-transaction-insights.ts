import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateTransactionInsights1764000300000 implements MigrationInterface {
  name = 'CreateTransactionInsights1764000300000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE "transaction_insights" (
        "transaction_id" bigint NOT NULL,
        "category" varchar(32) NOT NULL,
        "summary" varchar(500) NOT NULL,
        "budgeting_tip" varchar(500) NOT NULL,
        "confidence_score" double precision NOT NULL,
        "source" varchar(32) NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_transaction_insights" PRIMARY KEY ("transaction_id"),
        CONSTRAINT "fk_transaction_insights_transaction" FOREIGN KEY ("transaction_id")
          REFERENCES "transactions" ("id") ON DELETE RESTRICT
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "transaction_insights"`);
  }
}
