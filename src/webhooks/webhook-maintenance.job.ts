import { Injectable, Logger } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter, Gauge, Histogram } from 'prom-client';
import { DatabaseOutages } from '../common/errors/database-outages';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import {
  ATTEMPT_OUTCOMES,
  ATTEMPT_REASONS,
  WEBHOOK_ATTEMPT_DURATION,
  WEBHOOK_ATTEMPTS,
  WEBHOOK_ENDPOINTS,
  WEBHOOK_OLDEST_PENDING_AGE,
} from './webhook-metrics';

const PURGE_BATCH = 5000;

/**
 * The webhook gauges, sampled from PostgreSQL (the same on every instance), and the purge of
 * deliveries whose endpoint was deleted. Finished deliveries go after
 * WEBHOOK_DELIVERY_RETENTION_DAYS with their daily partition (src/partitions/retention.job.ts).
 */
@Injectable()
export class WebhookMaintenanceJob {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    @InjectMetric(WEBHOOK_OLDEST_PENDING_AGE) private readonly oldestAge: Gauge,
    @InjectMetric(WEBHOOK_ENDPOINTS) private readonly endpoints: Gauge,
    @InjectMetric(WEBHOOK_ATTEMPTS) attempts: Counter,
    @InjectMetric(WEBHOOK_ATTEMPT_DURATION) duration: Histogram,
    private readonly outages: DatabaseOutages,
  ) {
    // Every series exists from the start, so rates and alerts see a 0 rather than nothing.
    for (const outcome of ATTEMPT_OUTCOMES) {
      for (const reason of ATTEMPT_REASONS) {
        if ((outcome === 'delivered') === (reason === 'none')) attempts.inc({ outcome, reason }, 0);
      }
    }
    duration.zero({});
    for (const status of ['ENABLED', 'DISABLED']) this.endpoints.set({ status }, 0);
  }

  @Interval('webhook-gauges', 1000)
  async refreshGauges(): Promise<void> {
    try {
      const backlog = await this.deliveries.endpointBacklog();
      this.oldestAge.reset();
      for (const row of backlog) this.oldestAge.set({ endpoint: row.endpoint }, row.oldestAgeSeconds);
      for (const status of ['ENABLED', 'DISABLED']) {
        this.endpoints.set({ status }, backlog.filter((row) => row.status === status).length);
      }
    } catch {
      // The database is unreachable; readiness reports that. Keep the last values.
    }
  }

  @Interval('webhook-purge', 3_600_000)
  async purge(): Promise<number> {
    let purged = 0;
    try {
      let batch: number;
      do {
        batch = await this.deliveries.purgeOrphans(PURGE_BATCH);
        purged += batch;
      } while (batch === PURGE_BATCH);
    } catch (error) {
      if (!this.outages.absorbs('webhook-purge', error))
        this.logger.warn({
          msg: 'Purging deliveries of deleted endpoints failed; retrying in an hour',
          error: String(error),
        });
    }
    return purged;
  }
}
