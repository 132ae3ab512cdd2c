import { Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';

/** Stored outcomes live IDEMPOTENCY_TTL_HOURS; after that a key may name a new request. */
@Injectable()
export class IdempotencyPurgeJob {
  private readonly logger = new Logger(IdempotencyPurgeJob.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  @Cron(CronExpression.EVERY_10_MINUTES, { name: 'idempotency-purge' })
  async run(): Promise<void> {
    try {
      const purged = await this.purgeExpired();
      if (purged > 0) this.logger.log(`Purged ${purged} expired idempotency keys`);
    } catch (error) {
      this.logger.error(`Idempotency purge failed: ${(error as Error).message}`);
    }
  }

  /** Deletes expired keys in batches (served by ix_idempotency_keys_created); returns how many. */
  async purgeExpired(batchSize = 5000): Promise<number> {
    let total = 0;
    for (;;) {
      const [, deleted] = (await this.dataSource.query(
        `DELETE FROM idempotency_keys WHERE id IN (
           SELECT id FROM idempotency_keys
           WHERE created_at < now() - make_interval(hours => $1)
           ORDER BY created_at LIMIT $2)`,
        [this.config.idempotencyTtlHours, batchSize],
      )) as [unknown, number];
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }
}
