import { Injectable, Logger } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { DatabaseOutages } from '../common/errors/database-outages';
import { AppConfig } from '../config/app-config';
import { type ExpiringTable, PartitionsRepository } from './partitions.repository';

const HOUR = 3600;
const DAY = 24 * HOUR;

/**
 * Retention by dropping whole daily partitions, never by DELETE (which leaves vacuum work on the
 * hottest tables): idempotency keys after IDEMPOTENCY_TTL_HOURS, outbox events after
 * OUTBOX_RETENTION_DAYS once published and read by their webhook deliveries, finished webhook
 * deliveries after WEBHOOK_DELIVERY_RETENTION_DAYS. A partition still in use stays whole.
 */
@Injectable()
export class RetentionJob {
  private readonly logger = new Logger('Retention');

  constructor(
    private readonly partitions: PartitionsRepository,
    private readonly config: AppConfig,
    private readonly outages: DatabaseOutages,
  ) {}

  /** How long each short-lived table keeps its rows, in seconds. */
  private keep(): Record<ExpiringTable, number> {
    return {
      idempotency_keys: this.config.idempotencyTtlHours * HOUR,
      outbox_events: this.config.outboxRetentionDays * DAY,
      webhook_deliveries: this.config.webhookDeliveryRetentionDays * DAY,
    };
  }

  /** Drops what has expired; returns how many partitions went. A failure is logged, and the next run tries again. */
  @Interval('partition-retention', 3_600_000)
  async run(): Promise<number> {
    let dropped = 0;
    for (const [table, seconds] of Object.entries(this.keep()) as [ExpiringTable, number][]) {
      try {
        dropped += await this.partitions.dropExpired(table, seconds);
      } catch (error) {
        if (!this.outages.absorbs('partition-retention', error)) {
          this.logger.error(`Dropping expired partitions of ${table} failed: ${(error as Error).message}`);
        }
      }
    }
    if (dropped > 0) this.logger.log(`Dropped ${dropped} expired partitions`);
    return dropped;
  }
}
