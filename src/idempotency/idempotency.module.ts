// Owns idempotency_keys: claimed and finished inside each movement's SQL function,
// read here at the edges (the interceptor, replays) and purged by its job.
import { Module } from '@nestjs/common';
import { idempotencyMetricProviders } from './idempotency-metrics';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { IdempotencyPurgeJob } from './idempotency-purge.job';
import { IdempotencyStore } from './idempotency.store';

/**
 * Keys are claimed and outcomes stored inside each movement's SQL function (one transaction with
 * the money); this module reads them at the edges (the interceptor, replays while a dependency is
 * down) and purges them.
 */
@Module({
  providers: [
    IdempotencyPurgeJob,
    IdempotencyKeysRepository,
    IdempotencyStore,
    IdempotencyInterceptor,
    ...idempotencyMetricProviders,
  ],
  exports: [IdempotencyPurgeJob, IdempotencyStore, IdempotencyInterceptor, ...idempotencyMetricProviders],
})
export class IdempotencyModule {}
