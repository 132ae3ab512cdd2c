// Owns holds and hold_captures: money a payer reserves for a payee, kept in the holds accounts
// (rows of users, kind HOLDS) until captured, released or expired. The movements are in ./sql.
import { Module } from '@nestjs/common';
import { MovementsModule } from '../movements/movements.module';
import { OutboxModule } from '../outbox/outbox.module';
import { TransactionsModule } from '../transactions/transactions.module';
import { UsersModule } from '../users/users.module';
import { HoldExpiryJob } from './hold-expiry.job';
import { HoldsController } from './holds.controller';
import { HoldsMetrics, holdsMetricProviders } from './holds-metrics';
import { HoldsRepository } from './holds.repository';
import { HoldsService } from './holds.service';

/** Holds (docs/api-guide.md "Holds"): place, capture, release, and the expiry job. */
@Module({
  imports: [TransactionsModule, MovementsModule, UsersModule, OutboxModule],
  controllers: [HoldsController],
  providers: [HoldsRepository, HoldsService, HoldExpiryJob, HoldsMetrics, ...holdsMetricProviders],
})
export class HoldsModule {}
