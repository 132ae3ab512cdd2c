// Owns scheduled_transfers and scheduled_transfer_runs: standing instructions and their runs;
// the runner claims due runs and makes each an ordinary transfer.
import { Module } from '@nestjs/common';
import { TransactionsModule } from '../transactions/transactions.module';
import { RunExecutor } from './run-executor';
import { ScheduledTransferRunner } from './scheduled-transfer-runner';
import { ScheduledTransfersController, UserScheduledTransfersController } from './scheduled-transfers.controller';
import { ScheduledTransfersRepository } from './scheduled-transfers.repository';
import { ScheduledTransfersService } from './scheduled-transfers.service';

/**
 * Standing instructions: the sender's API, and the runner that turns each due occurrence into an
 * ordinary transfer (docs/api-guide.md "Scheduled transfers").
 */
@Module({
  imports: [TransactionsModule],
  controllers: [ScheduledTransfersController, UserScheduledTransfersController],
  providers: [ScheduledTransfersRepository, ScheduledTransfersService, RunExecutor, ScheduledTransferRunner],
})
export class SchedulesModule {}
