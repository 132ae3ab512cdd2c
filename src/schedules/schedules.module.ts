import { Module } from '@nestjs/common';
import { TransactionsModule } from '../transactions/transactions.module';
import { RunExecutor } from './run-executor';
import { ScheduledTransferRunner } from './scheduled-transfer-runner';
import { ScheduledTransfersController, UserScheduledTransfersController } from './scheduled-transfers.controller';
import { ScheduledTransfersRepository } from './scheduled-transfers.repository';
import { ScheduledTransfersService } from './scheduled-transfers.service';

/**
 * Standing instructions: the sender's API, and the runner that turns each due occurrence into an
 * ordinary transfer (README "Scheduled transfers").
 */
@Module({
  imports: [TransactionsModule],
  controllers: [ScheduledTransfersController, UserScheduledTransfersController],
  providers: [ScheduledTransfersRepository, ScheduledTransfersService, RunExecutor, ScheduledTransferRunner],
})
export class SchedulesModule {}
