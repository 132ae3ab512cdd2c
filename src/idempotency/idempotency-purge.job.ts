import { Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { deleteInChunks, runPurge } from '../common/scheduled-purge';
import { DatabaseOutages } from '../common/errors/database-outages';
import { AppConfig } from '../config/app-config';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';

/** Stored outcomes live IDEMPOTENCY_TTL_HOURS; after that a key may name a new request. */
@Injectable()
export class IdempotencyPurgeJob {
  private readonly logger = new Logger(IdempotencyPurgeJob.name);

  constructor(
    private readonly keys: IdempotencyKeysRepository,
    private readonly config: AppConfig,
    private readonly outages: DatabaseOutages,
  ) {}

  @Cron(CronExpression.EVERY_10_MINUTES, { name: 'idempotency-purge' })
  run(): Promise<void> {
    return runPurge(
      this.logger,
      'Idempotency purge',
      'expired idempotency keys',
      () => this.purgeExpired(),
      this.outages,
    );
  }

  /** Deletes expired keys in batches; returns how many. */
  purgeExpired(batchSize = 5000): Promise<number> {
    return deleteInChunks(batchSize, (size) => this.keys.deleteExpired(this.config.idempotencyTtlHours, size));
  }
}
