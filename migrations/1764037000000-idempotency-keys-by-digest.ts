import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Placeholder: filled in by its change. */
export class IdempotencyKeysByDigest1764037000000 implements MigrationInterface {
  name = 'IdempotencyKeysByDigest1764037000000';

  async up(_db: QueryRunner): Promise<void> {}

  async down(_db: QueryRunner): Promise<void> {}
}
