// Owns transaction_insights: the model's (or the rule-based) spend category of a transaction,
// for POST /api/v1/transactions/{id}/insights and for each completed transfer's event.
import { Module } from '@nestjs/common';
import { OutboxModule } from '../outbox/outbox.module';
import { TransactionsModule } from '../transactions/transactions.module';
import { AiInsightClient } from './ai-insight.client';
import { InsightsController } from './insights.controller';
import { InsightsService } from './insights.service';
import { TransactionInsightsRepository } from './transaction-insights.repository';
import { TransferEventsController } from './transfer-events.controller';

@Module({
  imports: [TransactionsModule, OutboxModule],
  controllers: [InsightsController, TransferEventsController],
  providers: [InsightsService, AiInsightClient, TransactionInsightsRepository],
})
export class InsightsModule {}
