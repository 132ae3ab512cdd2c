import { Module } from '@nestjs/common';
import { idempotencyMetricProviders } from './idempotency-metrics';
import { IdempotencyPurgeJob } from './idempotency-purge.job';
import { IdempotencyStore } from './idempotency.store';
import { IdempotencyKeyGuard, MovementMetrics } from './idempotent-route';

/**
 * Keys are claimed and outcomes stored inside each movement's SQL function (one transaction with
 * the money); this module reads them at the edges (the key guard, replays while a dependency is
 * down) and purges them.
 */
@Module({
  providers: [
    IdempotencyPurgeJob,
    IdempotencyStore,
    IdempotencyKeyGuard,
    MovementMetrics,
    ...idempotencyMetricProviders,
  ],
  exports: [IdempotencyPurgeJob, IdempotencyStore, IdempotencyKeyGuard, MovementMetrics, ...idempotencyMetricProviders],
})
export class IdempotencyModule {}
