// Owns no table: what every money movement shares (the typed call of its SQL function, the outcome
// vocabulary and its rendering, @MovementRoute), for transactions/, treasury/ and payment-requests/.
import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { OutboxModule } from '../outbox/outbox.module';
import { MoneyPathLoad } from './money-path-load';
import { MovementInterceptor } from './movement-interceptor';
import { movementMetricProviders } from './movement-metrics';
import { MovementRunner } from './movement-runner';
import { OutcomeRenderer } from './outcome-renderer';

/** Runs and renders money movements; the database side of the skeleton is idempotency/sql. */
@Module({
  imports: [IdempotencyModule, OutboxModule],
  providers: [OutcomeRenderer, MovementRunner, MoneyPathLoad, MovementInterceptor, ...movementMetricProviders],
  exports: [
    OutcomeRenderer,
    MovementRunner,
    MoneyPathLoad,
    MovementInterceptor,
    ...movementMetricProviders,
    IdempotencyModule,
  ],
})
export class MovementsModule {}
