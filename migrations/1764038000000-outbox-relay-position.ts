import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Placeholder: filled in by its change. */
export class OutboxRelayPosition1764038000000 implements MigrationInterface {
  name = 'OutboxRelayPosition1764038000000';

  async up(_db: QueryRunner): Promise<void> {}

  async down(_db: QueryRunner): Promise<void> {}
}
