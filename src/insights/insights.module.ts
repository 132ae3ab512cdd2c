import { Module } from '@nestjs/common';
import { TransactionsModule } from '../transactions/transactions.module';
import { AiInsightClient } from './ai-insight.client';
import { InsightsController } from './insights.controller';
import { InsightsService } from './insights.service';

@Module({
  imports: [TransactionsModule],
  controllers: [InsightsController],
  providers: [InsightsService, AiInsightClient],
})
export class InsightsModule {}
