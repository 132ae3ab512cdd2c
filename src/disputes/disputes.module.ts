// Owns disputes: a payer's complaint on a transfer, its answers and its history; a refund goes
// through the reversal rules (transactions/sql/reversal_apply.sql) inside dispute_act (./sql).
import { Module } from '@nestjs/common';
import { MovementsModule } from '../movements/movements.module';
import { OutboxModule } from '../outbox/outbox.module';
import { UsersModule } from '../users/users.module';
import { DisputeEscalationJob } from './dispute-escalation.job';
import { disputeMetricProviders } from './dispute-metrics';
import { DisputesAdminController } from './disputes-admin.controller';
import { DisputesController } from './disputes.controller';
import { DisputesRepository } from './disputes.repository';
import { DisputesService } from './disputes.service';

/** UPI-style disputes (docs/api-guide.md "Disputes"): the API, the escalation job and its gauges. */
@Module({
  imports: [MovementsModule, OutboxModule, UsersModule],
  controllers: [DisputesController, DisputesAdminController],
  providers: [DisputesRepository, DisputesService, DisputeEscalationJob, ...disputeMetricProviders],
})
export class DisputesModule {}
