import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fewer bytes per idempotency record (issue 41), about 290 of heap and 100 of index per transfer
 * before:
 * - each day's unique index is on a 16-byte digest of (owner, key), an expression index
 *   (src/idempotency/sql/idempotency_key_digest.sql): an entry of 24 bytes instead of about 72
 *   for the two texts, and nothing stored in the row for it. The texts stay in the row, and every
 *   lookup compares them too (idempotency_record.sql). Existing days get the new index here, built
 *   from their rows, and lose <partition>_owner_key; ensure_partitions.sql makes new days so;
 * - id and its identity sequence go: nothing reads a record by id (its primary key went in
 *   1764033000000-fewer-index-entries-per-transfer), and updated_at: a record is written once;
 * - request_id: an outcome's request id, when it is a UUID's text, is kept as 16 bytes there
 *   instead of 36 characters and a name in the outcome's JSON (outcome_request_id.sql);
 *   idempotent_replay.sql puts it back. Records written before keep it in their outcome.
 * Dropping columns rewrites nothing; building each live day's index holds that day's writes while
 * it reads the day (short-lived, small). down folds request ids back into the outcomes, gives every
 * row an id and updated_at (the time of down), and builds the (owner, key) indexes again.
 */
export class IdempotencyKeysByDigest1764037000000 implements MigrationInterface {
  name = 'IdempotencyKeysByDigest1764037000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(KEY_DIGEST);
    for (const { schema, partition } of await partitions(db)) {
      await db.query(
        `CREATE UNIQUE INDEX "${partition}_key_digest" ON "${schema}"."${partition}"
           (idempotency_key_digest("owner_upi_id", "idempotency_key"))`,
      );
      await db.query(`DROP INDEX IF EXISTS "${schema}"."${partition}_owner_key"`);
    }
    await db.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "id", DROP COLUMN "updated_at"`);
    await db.query(`ALTER TABLE "idempotency_keys" ADD COLUMN "request_id" uuid`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `UPDATE "idempotency_keys" SET "outcome" = "outcome" || jsonb_build_object('requestId', "request_id"::text)
       WHERE "request_id" IS NOT NULL`,
    );
    await db.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "request_id"`);
    await db.query(
      `ALTER TABLE "idempotency_keys" ADD COLUMN "updated_at" timestamp with time zone NOT NULL DEFAULT now()`,
    );
    await db.query(`ALTER TABLE "idempotency_keys" ADD COLUMN "id" bigint GENERATED ALWAYS AS IDENTITY`);
    for (const { schema, partition } of await partitions(db)) {
      await db.query(
        `CREATE UNIQUE INDEX "${partition}_owner_key" ON "${schema}"."${partition}" ("owner_upi_id", "idempotency_key")`,
      );
      await db.query(`DROP INDEX IF EXISTS "${schema}"."${partition}_key_digest"`);
    }
  }
}

/** The partitions of idempotency_keys (the one on the search path: the scratch schema of the schema check too). */
async function partitions(db: QueryRunner): Promise<{ schema: string; partition: string }[]> {
  return (await db.query(
    `SELECT n.nspname AS schema, c.relname AS partition
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE i.inhparent = 'idempotency_keys'::regclass ORDER BY c.relname`,
  )) as { schema: string; partition: string }[];
}

// A copy of src/idempotency/sql/idempotency_key_digest.sql, which the indexes need before the
// function files are applied; the file is what the database runs afterwards (the same body).
const KEY_DIGEST = `
CREATE OR REPLACE FUNCTION idempotency_key_digest(p_owner text, p_idempotency_key text) RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN encode(substr(sha256(decode(replace(p_owner || '/' || p_idempotency_key, '\\', '\\\\'), 'escape')), 1, 16),
              'hex')::uuid`;
