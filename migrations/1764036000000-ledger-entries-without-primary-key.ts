import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Placeholder: filled in by its change. */
export class LedgerEntriesWithoutPrimaryKey1764036000000 implements MigrationInterface {
  name = 'LedgerEntriesWithoutPrimaryKey1764036000000';

  async up(_db: QueryRunner): Promise<void> {}

  async down(_db: QueryRunner): Promise<void> {}
}
