import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { OutboxModule } from '../outbox/outbox.module';
import { MovementRunner } from './movement-runner';
import { OutcomeRenderer } from './outcome-renderer';

/**
 * Owns no table: the machinery every money movement shares (transactions/, treasury/): the typed
 * call of a movement's SQL function, its outcome vocabulary and rendering, and the movement route.
 */
@Module({
  imports: [IdempotencyModule, OutboxModule],
  providers: [OutcomeRenderer, MovementRunner],
  exports: [OutcomeRenderer, MovementRunner, IdempotencyModule],
})
export class MovementsModule {}
