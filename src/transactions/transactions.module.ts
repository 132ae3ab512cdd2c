// Owns transactions (written only by the money SQL functions) and transfer_rate_limits: the transfer,
// its group commit, reversals and the transaction reads (transactions.repository.ts).
import { Module } from '@nestjs/common';
import { MovementsModule } from '../movements/movements.module';
import { UsersModule } from '../users/users.module';
import { ReversalService } from './reversal.service';
import { ReversalsController } from './reversals.controller';
import { TransactionsController } from './transactions.controller';
import { TransactionsRepository } from './transactions.repository';
import { TransactionsService } from './transactions.service';
import { transferMetricProviders } from './transfer-metrics';
import { SenderIsCallerGuard, TransferRateLimitGuard } from './transfer.guards';
import { TransferRateLimiter } from './transfer-rate-limiter';
import { TransferBatcher, transferBatchMetricProviders } from './transfer-batcher';
import { TransferService } from './transfer.service';

@Module({
  imports: [UsersModule, MovementsModule],
  controllers: [TransactionsController, ReversalsController],
  providers: [
    TransferService,
    TransferBatcher,
    ReversalService,
    TransactionsService,
    TransactionsRepository,
    TransferRateLimiter,
    SenderIsCallerGuard,
    TransferRateLimitGuard,
    ...transferMetricProviders,
    ...transferBatchMetricProviders,
  ],
  exports: [TransactionsService, TransactionsRepository, TransferRateLimiter, TransferService],
})
export class TransactionsModule {}
