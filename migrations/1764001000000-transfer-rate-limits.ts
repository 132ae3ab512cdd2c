import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The per-user transfer counters when RATE_LIMIT_STORE=postgres, in the layout
 * rate-limiter-flexible's RateLimiterPostgres reads and writes (key, points, expire in epoch ms).
 * Created here so the service never runs DDL at request time. UNLOGGED: a counter lives one
 * second, so it needs no WAL and its write does not wait for an fsync; after a crash the table
 * starts empty, which is what a restarted in-memory limiter does too.
 */
export class TransferRateLimits1764001000000 implements MigrationInterface {
  name = 'TransferRateLimits1764001000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE UNLOGGED TABLE "transfer_rate_limits" (
        "key" varchar(255) PRIMARY KEY,
        "points" integer NOT NULL DEFAULT 0,
        "expire" bigint
      )`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "transfer_rate_limits"`);
  }
}
