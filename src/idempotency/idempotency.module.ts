// Owns idempotency_keys: claimed and finished inside each movement's SQL function, read here at the
// edges (MovementInterceptor, replays); expired keys go with their daily partition (src/partitions).
import { Module } from '@nestjs/common';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { IdempotencyStore } from './idempotency.store';

/**
 * Keys are claimed and outcomes stored inside each movement's SQL function (one transaction with
 * the money); this module reads them at the edges (the interceptor, replays while a dependency is
 * down). The movement routes' interceptor is src/movements/movement-interceptor.ts.
 */
@Module({
  providers: [IdempotencyKeysRepository, IdempotencyStore],
  exports: [IdempotencyStore],
})
export class IdempotencyModule {}
