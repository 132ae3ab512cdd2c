// Owns idempotency_keys: claimed and finished inside each movement's SQL function,
// read here at the edges (MovementInterceptor in src/movements, replays) and purged by its job.
import { Module } from '@nestjs/common';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { IdempotencyPurgeJob } from './idempotency-purge.job';
import { IdempotencyStore } from './idempotency.store';

/**
 * Keys are claimed and outcomes stored inside each movement's SQL function (one transaction with
 * the money); this module reads them at the edges (the interceptor, replays while a dependency is
 * down) and purges them. The movement routes' interceptor is src/movements/movement-interceptor.ts.
 */
@Module({
  providers: [IdempotencyPurgeJob, IdempotencyKeysRepository, IdempotencyStore],
  exports: [IdempotencyPurgeJob, IdempotencyStore],
})
export class IdempotencyModule {}
